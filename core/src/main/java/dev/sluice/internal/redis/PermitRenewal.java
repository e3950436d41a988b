package dev.sluice.internal.redis;

import dev.sluice.StoreUnavailableException;

import java.util.List;

/**
 * The wire format of {@code semaphore-extend.lua}, on the Java side: the one writer of its arguments and the one
 * validated reader of its reply. The script renews a permit of any permit set ({@code include/permit-set.lua}), a
 * semaphore's or a concurrency limit's, so both stores call it through this class. It takes the set as its one key,
 * the permit id and the new lease in ms, and answers 1 (renewed) or 0 (run out); its header documents the same, and
 * an operator replacing it ({@code sluice.script.semaphore-extend}) keeps it. Stateless.
 */
public final class PermitRenewal {

    private PermitRenewal() {
    }

    /** {@code KEYS}: the permit set. */
    public static List<String> keys(String key) {
        return List.of(key);
    }

    /** {@code ARGV}: the permit id and the new lease in milliseconds. */
    public static List<String> args(String permitId, long leaseMillis) {
        return List.of(permitId, Long.toString(leaseMillis));
    }

    /**
     * Whether the permit was renewed.
     *
     * @throws StoreUnavailableException naming the script when the reply is neither 1 nor 0
     */
    public static boolean renewed(Object reply, LuaScript script) {
        return ScriptReplies.flag(reply, script);
    }
}
