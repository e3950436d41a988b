package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.PermitRenewal;
import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptExecutor;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Rate-limit buckets in Redis, decided by {@code gcra.lua} on the Redis clock: one {@code EVALSHA} per
 * decision in standalone and Sentinel mode, one per hash slot in Cluster mode (each slot atomic on its
 * own, so a policy denied in one slot does not undo a charge already made in another; a concurrency limit's permit
 * taken in one slot is returned when another slot refuses the request, so that a refused request holds none).
 *
 * <p>In standalone and Sentinel mode, decisions that threads ask for at the same time travel together
 * ({@link ScriptCalls}): one pipeline of {@code EVALSHA}s on one connection, each still its own atomic script call.
 * A lone caller sends its own call at once, as without combining. Cluster mode sends each call on its own, since a
 * batch would span nodes.
 *
 * <p>After a Redis restart the pool's idle connections are dead and the first use of each fails at once. Such a
 * failure is retried once on a fresh connection (a combined batch as a whole) so that callers never see the
 * restart. Timeouts are not retried: a hung Redis must cost a caller one timeout, not two. The retry can charge a
 * bucket twice in the rare case where Redis ran the script and then the connection broke; for a rate limit that
 * errs on the safe side.
 *
 * <p>Thread-safe; holds no connection of its own.
 */
public final class RedisRateLimitStore implements RateLimitStore {

    /** Batches in flight at once when combining. */
    public static final int DEFAULT_SENDERS = ScriptCalls.DEFAULT_SENDERS;
    /** Most decisions in one batch. */
    public static final int DEFAULT_BATCH = ScriptCalls.DEFAULT_BATCH;

    private final LuaScript script;
    private final LuaScript releaseScript;
    private final LuaScript renewScript;
    private final boolean cluster;
    private final ScriptCalls calls;

    /**
     * @param scripts                the scripts as configured, operators' replacements included
     * @param discardIdleConnections called when a pooled connection turns out to be broken (Redis restarted),
     *                               before the one retry
     * @param senders                batches in flight at once; 0 sends every decision on its own
     * @param batch                  most decisions in one batch
     */
    public RedisRateLimitStore(ScriptExecutor executor, Scripts scripts, RedisSettings.Mode mode,
            Runnable discardIdleConnections, int senders, int batch) {
        this.script = scripts.decide;
        this.releaseScript = scripts.release;
        this.renewScript = scripts.renew;
        this.cluster = mode == RedisSettings.Mode.CLUSTER;
        this.calls = new ScriptCalls(executor, mode, senders, batch, ScriptCalls.OnBrokenConnection.RETRY_ONCE,
                discardIdleConnections);
    }

    /**
     * The scripts of rate limits, each the bundled one or the operator's replacement ({@code sluice.script.<name>}):
     * {@code gcra.lua} (the decision), {@code concurrency-release.lua} (returns a request's permits) and
     * {@code semaphore-extend.lua} (renews a permit's lease). Only {@link #load} makes them, so a store runs what
     * the configuration names, in tests too. Immutable.
     */
    public static final class Scripts {

        private final LuaScript decide;
        private final LuaScript release;
        private final LuaScript renew;

        private Scripts(LuaScript decide, LuaScript release, LuaScript renew) {
            this.decide = decide;
            this.release = release;
            this.renew = renew;
        }

        /**
         * @param overrides script name to location, as in {@code SluiceConfig.scripts()}
         * @throws dev.sluice.SluiceConfigException naming {@code sluice.script.<name>} when a replacement cannot
         *                                          be read
         */
        public static Scripts load(Map<String, String> overrides) {
            Function<String, Optional<String>> config = key -> Optional.ofNullable(
                    overrides.get(key.substring(LuaScript.configKey("").length())));
            return new Scripts(LuaScript.load("gcra", config), LuaScript.load("concurrency-release", config),
                    LuaScript.load("semaphore-extend", config));
        }

        /** Every script, for preloading (which also checks that replacements compile). */
        public List<LuaScript> all() {
            return List.of(decide, release, renew);
        }
    }

    @Override
    public List<BucketOutcome> consume(List<BucketRequest> requests) {
        if (!cluster || requests.size() == 1) {
            return call(requests);
        }
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            bySlot.computeIfAbsent(JedisClusterCRC16.getSlot(requests.get(i).key()), s -> new ArrayList<>()).add(i);
        }
        if (bySlot.size() == 1) {
            return call(requests);
        }
        BucketOutcome[] outcomes = new BucketOutcome[requests.size()];
        boolean[] taken = new boolean[requests.size()];
        boolean admitted = true;
        for (List<Integer> indexes : bySlot.values()) {
            List<BucketRequest> group = new ArrayList<>(indexes.size());
            indexes.forEach(i -> group.add(requests.get(i)));
            // A failure here leaves permits taken in the slots before it: the engine returns them (owner-checked).
            List<BucketOutcome> groupOutcomes = call(group);
            boolean slotAdmitted = true;
            for (int j = 0; j < indexes.size(); j++) {
                outcomes[indexes.get(j)] = groupOutcomes.get(j);
                slotAdmitted &= groupOutcomes.get(j).allowed() || !group.get(j).mode().decides();
            }
            for (int j = 0; j < indexes.size(); j++) {
                BucketRequest request = group.get(j);
                taken[indexes.get(j)] = slotAdmitted && request.permit() != null
                        && (request.mode().decides() || groupOutcomes.get(j).allowed());
            }
            admitted &= slotAdmitted;
        }
        if (!admitted) {
            returnTaken(requests, outcomes, taken);
        }
        return List.of(outcomes);
    }

    /**
     * A request refused in one slot holds no permit taken in another: each is returned (owner-checked, by the
     * request's permit id) before the refusal is answered, and its outcome counts it free again.
     *
     * @throws StoreUnavailableException when they cannot be returned (the engine then returns them in the background)
     */
    private void returnTaken(List<BucketRequest> requests, BucketOutcome[] outcomes, boolean[] taken) {
        Map<String, List<String>> keysById = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            if (taken[i]) {
                keysById.computeIfAbsent(requests.get(i).permit().id(), id -> new ArrayList<>())
                        .add(requests.get(i).key());
                BucketOutcome o = outcomes[i];
                outcomes[i] = new BucketOutcome(o.allowed(), o.remaining() + 1, o.tightest(), 0, o.resetMicros());
            }
        }
        keysById.forEach((id, keys) -> release(keys, id));
    }

    @Override
    public int release(List<String> keys, String permitId) {
        if (keys.isEmpty()) {
            return 0;
        }
        Map<Integer, List<String>> bySlot = new LinkedHashMap<>();
        for (String key : keys) {
            bySlot.computeIfAbsent(cluster ? JedisClusterCRC16.getSlot(key) : 0, s -> new ArrayList<>()).add(key);
        }
        int held = 0;
        for (List<String> slotKeys : bySlot.values()) {
            held += PermitProtocol.returned(other(releaseScript, slotKeys, PermitProtocol.releaseArgs(permitId)),
                    slotKeys.size(), releaseScript);
        }
        return held;
    }

    @Override
    public boolean renew(String key, String permitId, long leaseMillis) {
        return PermitRenewal.renewed(other(renewScript, PermitRenewal.keys(key), PermitRenewal.args(permitId,
                leaseMillis)), renewScript);
    }

    /** One call of a script other than {@code gcra.lua}, on its own (never combined), failures mapped alike. */
    private Object other(LuaScript other, List<String> keys, List<String> args) {
        try {
            return calls.evalAlone(other, keys, args);
        } catch (JedisDataException e) {
            throw new StoreUnavailableException("Lua script " + other.name() + " (" + other.location()
                    + ") failed in Redis: " + e.getMessage(), e);
        } catch (JedisException e) {
            throw new StoreUnavailableException("Redis concurrency-limit call failed: " + e.getMessage(), e);
        }
    }

    private List<BucketOutcome> call(List<BucketRequest> requests) {
        Object reply;
        try {
            reply = calls.eval(script, GcraProtocol.keys(requests), GcraProtocol.args(requests));
        } catch (JedisDataException e) {
            // Redis answered with an error: the script failed, typically an operator's replacement. Naming it
            // tells the operator where to look; the failure mode applies as for an unreachable Redis.
            throw new StoreUnavailableException("Lua script " + script.name() + " (" + script.location()
                    + ") failed in Redis: " + e.getMessage(), e);
        } catch (JedisException e) {
            throw new StoreUnavailableException("Redis rate-limit call failed: " + e.getMessage(), e);
        }
        return GcraProtocol.outcomes(reply, requests, script);
    }

    @Override
    public void close() {
        // The connector owns the pool and closes it.
    }
}
