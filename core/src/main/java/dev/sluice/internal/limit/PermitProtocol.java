package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.ScriptReplies;

import java.util.List;

/**
 * The wire format of {@code concurrency-release.lua}, which returns a request's permits of concurrency limits, on the
 * Java side: the writer of its arguments and the validated reader of its reply. It takes the permit sets as
 * {@code KEYS} and the permit id, and answers how many of them still held the permit (0 to the number of keys); its
 * header documents the same, and an operator replacing it ({@code sluice.script.concurrency-release}) keeps it. A
 * permit is renewed by {@code semaphore-extend.lua}, whose wire format {@link dev.sluice.internal.redis.PermitRenewal} holds for semaphores and
 * concurrency limits alike. Stateless.
 */
final class PermitProtocol {

    private PermitProtocol() {
    }

    /** {@code ARGV} of {@code concurrency-release.lua}. */
    static List<String> releaseArgs(String permitId) {
        return List.of(permitId);
    }

    /**
     * How many of {@code keys} permits were still held, read from {@code concurrency-release.lua}'s reply.
     *
     * @throws StoreUnavailableException naming the script when the reply is not an integer from 0 to {@code keys}
     */
    static int returned(Object reply, int keys, LuaScript script) {
        if (!(reply instanceof Long held) || held < 0 || held > keys) {
            throw ScriptReplies.misshapen(script, "expected an integer from 0 to " + keys + ", got " + reply);
        }
        return (int) (long) held;
    }
}
