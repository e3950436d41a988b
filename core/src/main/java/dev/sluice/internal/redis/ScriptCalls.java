package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisSettings.Mode;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How one store sends its script calls: each on its own connection, or combined with the calls other threads
 * make at the same time. Combined, a {@link CallCombiner} gathers concurrent calls, of any of the store's
 * scripts, and sends them as one pipeline of {@code EVALSHA}s on one connection ({@link ScriptExecutor#evalAll});
 * each stays its own atomic script call with its own reply, and a lone caller sends its call at once, on its own
 * thread. Cluster mode always sends each call on its own, since a batch would span nodes.
 *
 * <p>What a broken connection costs a call is the store's choice ({@link OnBrokenConnection}), and is the same
 * for a call sent alone and for a call in a batch: a batch is retried only when every call in it could be retried
 * alone. A timeout is never retried: a hung Redis costs a caller one timeout, not two. When a batch fails as a
 * whole, each of its calls fails with that exception, exactly as it would have failed alone, and so do the calls
 * queued behind it (they were never sent).
 *
 * <p>Thread-safe; holds no connection of its own.
 */
public final class ScriptCalls {

    /** What a broken connection (Redis restarted, the pool's idle connections dead) costs a call. */
    public enum OnBrokenConnection {
        /**
         * Sent again once on a fresh connection. Only for calls that may run twice when Redis ran them and the
         * connection broke before the reply: a rate-limit charge, which then errs on the safe side.
         */
        RETRY_ONCE,
        /**
         * Fails like any other connection failure, and the caller decides what the lost reply means. For calls
         * whose second run would answer differently: a lock release retried after it ran reports the lock as lost.
         */
        FAIL
    }

    /** Batches in flight at once when combining. */
    public static final int DEFAULT_SENDERS = 2;
    /** Most calls in one batch. */
    public static final int DEFAULT_BATCH = 64;

    private final ScriptExecutor executor;
    private final OnBrokenConnection onBroken;
    private final Runnable discardIdleConnections;
    private final CallCombiner<ScriptExecutor.Call, Object> combiner;

    /**
     * @param mode                   how Redis is deployed; Cluster never combines
     * @param senders                batches in flight at once; 0 sends every call on its own
     * @param batch                  most calls in one batch
     * @param discardIdleConnections called before the one retry of {@link OnBrokenConnection#RETRY_ONCE}
     */
    public ScriptCalls(ScriptExecutor executor, Mode mode, int senders, int batch, OnBrokenConnection onBroken,
            Runnable discardIdleConnections) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.onBroken = Objects.requireNonNull(onBroken, "onBroken");
        this.discardIdleConnections = Objects.requireNonNull(discardIdleConnections, "discardIdleConnections");
        this.combiner = mode == Mode.CLUSTER || senders == 0 ? null : new CallCombiner<>(senders, batch, this::send);
    }

    /** Every call on its own, a broken connection failing it: what a Redlock master or a test needs. */
    public static ScriptCalls alone(ScriptExecutor executor) {
        return new ScriptCalls(executor, Mode.STANDALONE, 0, 1, OnBrokenConnection.FAIL, () -> { });
    }

    /**
     * Combined with the {@link #DEFAULT_SENDERS} and {@link #DEFAULT_BATCH} sizes when {@code pipelining} is on
     * (and not in Cluster), else alone.
     */
    public static ScriptCalls of(ScriptExecutor executor, Mode mode, boolean pipelining, OnBrokenConnection onBroken,
            Runnable discardIdleConnections) {
        return new ScriptCalls(executor, mode, pipelining ? DEFAULT_SENDERS : 0, DEFAULT_BATCH, onBroken,
                discardIdleConnections);
    }

    /**
     * Runs {@code script}, combined with other threads' calls when combining.
     *
     * @return the script's reply as {@link ScriptExecutor#eval} returns it
     * @throws JedisDataException       when Redis answered this call with an error
     * @throws JedisConnectionException when Redis could not be reached or did not answer in time
     */
    public Object eval(LuaScript script, List<String> keys, List<String> args) {
        if (combiner == null || keys.isEmpty()) {
            return evalAlone(script, keys, args); // (without keys: refused before anything is sent)
        }
        if (!combiner.tryAlone()) {
            return combiner.call(new ScriptExecutor.Call(script, keys, args));
        }
        // Nobody waits and a sender's slot is free: the call goes at once on this thread, as a batch of one would.
        Throwable failedAsABatch = null;
        try {
            return evalAlone(script, keys, args);
        } catch (JedisDataException answeredWithAnError) {
            throw answeredWithAnError;
        } catch (RuntimeException | Error e) {
            failedAsABatch = e;
            throw e;
        } finally {
            combiner.leaveAlone(failedAsABatch);
        }
    }

    /** Runs {@code script} on its own, never combined, a broken connection handled as for every call. */
    public Object evalAlone(LuaScript script, List<String> keys, List<String> args) {
        try {
            return executor.eval(script, keys, args);
        } catch (JedisConnectionException e) {
            if (!retries(e)) {
                throw e;
            }
            discardIdleConnections.run();
            return executor.eval(script, keys, args);
        }
    }

    /** One call goes alone, exactly as without combining; more go as one pipeline. */
    private void send(List<CallCombiner.Call<ScriptExecutor.Call, Object>> batch) {
        if (batch.size() == 1) {
            CallCombiner.Call<ScriptExecutor.Call, Object> only = batch.get(0);
            ScriptExecutor.Call call = only.request();
            try {
                only.complete(evalAlone(call.script(), call.keys(), call.args()));
            } catch (JedisDataException answeredWithAnError) {
                only.fail(answeredWithAnError);
            }
            return;
        }
        List<ScriptExecutor.Call> calls = new ArrayList<>(batch.size());
        for (CallCombiner.Call<ScriptExecutor.Call, Object> call : batch) {
            calls.add(call.request());
        }
        List<Object> replies;
        try {
            replies = executor.evalAll(calls);
        } catch (JedisConnectionException e) {
            if (!retries(e)) {
                throw e;
            }
            discardIdleConnections.run();
            replies = executor.evalAll(calls);
        }
        for (int i = 0; i < batch.size(); i++) {
            if (replies.get(i) instanceof JedisDataException answeredWithAnError) {
                batch.get(i).fail(answeredWithAnError);
            } else {
                batch.get(i).complete(replies.get(i));
            }
        }
    }

    private boolean retries(JedisConnectionException e) {
        return onBroken == OnBrokenConnection.RETRY_ONCE && !isTimeout(e);
    }

    private static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
