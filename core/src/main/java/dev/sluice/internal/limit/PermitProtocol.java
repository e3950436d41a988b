package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.ScriptReplies;

import java.util.List;

/**
 * The wire format of the scripts that return and renew concurrency limits' permits, on the Java side: the writer of
 * their arguments and the validated reader of their replies. {@code concurrency-release.lua} takes the permit sets as
 * {@code KEYS} and the permit id, and answers how many of them still held the permit (0 to the number of keys);
 * {@code semaphore-extend.lua} takes one set, the permit id and the new lease in ms, and answers 1 (renewed) or 0
 * (run out). Their headers document the same; an operator replacing one ({@code sluice.script.<name>}) keeps it.
 * Stateless.
 */
final class PermitProtocol {

    private PermitProtocol() {
    }

    /** {@code ARGV} of {@code concurrency-release.lua}. */
    static List<String> releaseArgs(String permitId) {
        return List.of(permitId);
    }

    /** {@code ARGV} of {@code semaphore-extend.lua}. */
    static List<String> renewArgs(String permitId, long leaseMillis) {
        return List.of(permitId, Long.toString(leaseMillis));
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

    /**
     * Whether the permit was renewed, read from {@code semaphore-extend.lua}'s reply.
     *
     * @throws StoreUnavailableException naming the script when the reply is neither 1 nor 0
     */
    static boolean renewed(Object reply, LuaScript script) {
        return ScriptReplies.flag(reply, script);
    }
}
