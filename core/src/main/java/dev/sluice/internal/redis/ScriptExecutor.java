package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.RedisSettings.Mode;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Runs {@link LuaScript}s by SHA: every call is one {@code EVALSHA} ({@link ScriptCommand}), never {@code EVAL}, so
 * the script text crosses the network only when Redis lacks it. When Redis answers {@code NOSCRIPT} (it restarted,
 * failed over, or someone ran {@code SCRIPT FLUSH}) the script is loaded with {@code SCRIPT LOAD} and the
 * {@code EVALSHA} retried once; the caller does not notice. In Cluster mode the script is loaded on the node that
 * owns the first key, which is where the retried call goes. A call whose reply is lost is never sent again, in any
 * mode: in Cluster the connector's {@link AtMostOnceClusterExecutor} follows only redirections and connection
 * failures that happen before the command was written.
 *
 * <p>Every script takes at least one key: Cluster routes by it, and all Sluice scripts work on keys.
 *
 * <p>Thread-safe; holds no state besides the client supplier.
 */
public final class ScriptExecutor {

    /** A script every server that runs Lua compiles: a refusal to load it means the server runs no scripts. */
    static final String PROBE = "return 1";

    private final Supplier<UnifiedJedis> client;
    private final Mode mode;

    /**
     * @param client supplies the client for each call (see {@link RedisConnector#client()}, which may throw
     *               {@link JedisConnectionException} while Redis is unreachable)
     * @param mode   how Redis is deployed; Cluster changes where scripts are loaded
     */
    public ScriptExecutor(Supplier<UnifiedJedis> client, Mode mode) {
        this.client = Objects.requireNonNull(client, "client");
        this.mode = Objects.requireNonNull(mode, "mode");
    }

    /** An executor over the connector's client. */
    public static ScriptExecutor of(RedisConnector connector) {
        return new ScriptExecutor(connector::client, connector.mode());
    }

    /**
     * Runs {@code script} with {@code EVALSHA}, loading it first if Redis answers {@code NOSCRIPT}.
     *
     * @param keys the keys the script touches (at least one; in Cluster all in one hash slot)
     * @param args the script's arguments
     * @return the script's reply as Jedis decodes it ({@code Long}, {@code String}, {@code List}, {@code null})
     * @throws JedisConnectionException when Redis cannot be reached; nothing is retried, because a script whose
     *                                  reply was lost may have run
     * @throws SluiceConfigException    when Redis lacked the script and it does not compile (an operator's
     *                                  replacement that could not be checked at startup because Redis was down)
     */
    public Object eval(LuaScript script, List<String> keys, List<String> args) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("script " + script.name() + " needs at least one key");
        }
        UnifiedJedis jedis = client.get();
        CommandObject<Object> evalsha = ScriptCommand.evalsha(script, keys, args, mode);
        try {
            return jedis.executeCommand(evalsha);
        } catch (JedisNoScriptException missing) {
            load(jedis, script, keys.get(0));
            return jedis.executeCommand(evalsha);
        }
    }

    /** One {@code EVALSHA} of a batch: the script, its keys (at least one) and its arguments. */
    public record Call(LuaScript script, List<String> keys, List<String> args) {
        public Call {
            Objects.requireNonNull(script, "script");
            if (keys.isEmpty()) {
                throw new IllegalArgumentException("script " + script.name() + " needs at least one key");
            }
        }
    }

    /**
     * Runs {@code calls}, of one script or several, as one pipeline of {@code EVALSHA}s on one pooled connection:
     * one write and one read for the lot, each call still atomic on its own. If Redis answers {@code NOSCRIPT},
     * each missing script is loaded once and the calls that got it are sent again (they did not run). Standalone
     * and Sentinel only: a Cluster pipeline would split the batch by node anyway.
     *
     * @return per call, in order, the script's reply or the {@link JedisDataException} Redis answered that
     *         call with (a failing script fails its own call only)
     * @throws JedisConnectionException when Redis cannot be reached or the replies do not arrive within the
     *                                  socket timeout; any of the calls may then have run
     * @throws SluiceConfigException    as {@link #eval}
     */
    public List<Object> evalAll(List<Call> calls) {
        if (mode == Mode.CLUSTER) {
            throw new IllegalStateException("pipelined scripts are not routed by slot; call eval per slot in Cluster");
        }
        UnifiedJedis jedis = client.get();
        List<Object> replies = pipeline(jedis, calls);
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.get(i) instanceof JedisNoScriptException) {
                missing.add(i);
            }
        }
        if (!missing.isEmpty()) {
            List<Call> again = new ArrayList<>(missing.size());
            List<LuaScript> loaded = new ArrayList<>(1);
            for (int i : missing) {
                Call call = calls.get(i);
                if (!loaded.contains(call.script())) {
                    load(jedis, call.script(), call.keys().get(0));
                    loaded.add(call.script());
                }
                again.add(call);
            }
            List<Object> againReplies = pipeline(jedis, again);
            for (int j = 0; j < missing.size(); j++) {
                replies.set(missing.get(j), againReplies.get(j));
            }
        }
        return replies;
    }

    private List<Object> pipeline(UnifiedJedis jedis, List<Call> calls) {
        List<Response<Object>> responses = new ArrayList<>(calls.size());
        try (AbstractPipeline pipeline = jedis.pipelined()) {
            for (Call call : calls) {
                responses.add(pipeline.executeCommand(ScriptCommand.evalsha(call.script(), call.keys(), call.args(),
                        mode)));
            }
            pipeline.sync();
        }
        List<Object> replies = new ArrayList<>(calls.size());
        for (Response<Object> response : responses) {
            try {
                replies.add(response.get());
            } catch (JedisDataException answeredWithAnError) {
                replies.add(answeredWithAnError);
            }
        }
        return replies;
    }

    /**
     * Loads {@code scripts} into Redis (in Cluster into every known node) so that the first calls need no
     * {@code NOSCRIPT} round trip, and so that a replacement script that does not compile fails the deployment.
     * When Redis cannot be reached, nothing happens: {@link #eval} loads scripts on demand once it answers.
     *
     * @throws SluiceConfigException naming {@code sluice.script.<name>} and Redis's compiler error when a script
     *                               does not compile, or naming {@code sluice.redis.user} when the user may not
     *                               load scripts
     */
    public void preload(Collection<LuaScript> scripts) {
        UnifiedJedis jedis;
        try {
            jedis = client.get();
        } catch (JedisConnectionException unreachable) {
            return;
        }
        for (LuaScript script : scripts) {
            try {
                if (jedis instanceof RedisClusterClient) {
                    loadOnEveryNode((RedisClusterClient) jedis, script);
                } else {
                    check(script, jedis.scriptLoad(script.source()));
                }
            } catch (JedisConnectionException unreachable) {
                return;
            } catch (JedisDataException rejected) {
                throw explain(script, rejected, () -> jedis.scriptLoad(PROBE));
            }
        }
    }

    private void loadOnEveryNode(RedisClusterClient cluster, LuaScript script) {
        CommandObject<String> load = new CommandObject<>(new CommandArguments(Protocol.Command.SCRIPT)
                .add(Protocol.Keyword.LOAD).add(script.source()), BuilderFactory.STRING);
        // Replicas get the script too: one may be promoted, and SCRIPT LOAD is not replicated.
        CommandObject<String> probe = new CommandObject<>(new CommandArguments(Protocol.Command.SCRIPT)
                .add(Protocol.Keyword.LOAD).add(PROBE), BuilderFactory.STRING);
        for (ConnectionPool node : cluster.getClusterNodes().values()) {
            try (Connection connection = node.getResource()) {
                try {
                    check(script, connection.executeCommand(load));
                } catch (JedisDataException rejected) {
                    throw explain(script, rejected, () -> connection.executeCommand(probe));
                }
            } catch (JedisConnectionException unreachable) {
                // That node loads it on demand after NOSCRIPT once it is back.
            }
        }
    }

    private void load(UnifiedJedis jedis, LuaScript script, String routingKey) {
        try {
            if (mode == Mode.CLUSTER) {
                jedis.scriptLoad(script.source(), routingKey);
            } else {
                jedis.scriptLoad(script.source());
            }
        } catch (JedisConnectionException e) {
            throw e;
        } catch (JedisDataException rejected) {
            throw explain(script, rejected, () -> {
                if (mode == Mode.CLUSTER) {
                    jedis.scriptLoad(PROBE, routingKey);
                } else {
                    jedis.scriptLoad(PROBE);
                }
            });
        }
    }

    /** Redis hashes what it received; a different hash means the text was altered on the way. */
    private static void check(LuaScript script, String sha) {
        if (sha != null && !sha.equalsIgnoreCase(script.sha())) {
            throw new IllegalStateException("Redis loaded script " + script.name() + " as " + sha + " but its SHA-1 is "
                    + script.sha());
        }
    }

    /**
     * Why Redis refused to load {@code script}: the user may not (ACL), the server runs no Lua at all, or the script
     * does not compile. The last two answer with the same code ({@code ERR}) and differently worded texts (a command
     * renamed away: unknown command; Valkey built without Lua: no scripting engine), so they are told apart by
     * loading {@link #PROBE}, which compiles on every server that runs scripts.
     */
    private SluiceConfigException explain(LuaScript script, JedisDataException rejected, Runnable loadProbe) {
        if (rejected instanceof JedisAccessControlException) {
            return ConfigProblems.fromRedis("sluice.redis.user", "Redis refuses to load Lua script " + script.name()
                    + " for this user (" + rejected.getMessage() + ")", "an ACL user with +@scripting", rejected);
        }
        try {
            loadProbe.run();
        } catch (JedisConnectionException unreachable) {
            // Gone meanwhile: say what the script's own load answered.
        } catch (JedisDataException noScripting) {
            if (!(noScripting instanceof JedisAccessControlException)) {
                return ConfigProblems.fromRedis(RedisFailures.addressKey(mode), "the Redis server does not run Lua"
                        + " scripts: it refused to load a one-line script too (" + noScripting.getMessage()
                        + "); scripting is disabled, its commands renamed away, or the server was built without Lua",
                        "a Redis 7+ or Valkey 8+ server that runs Lua scripts (EVALSHA and SCRIPT LOAD available)",
                        rejected);
            }
        }
        return ConfigProblems.fromRedis(script.configKey(), '"' + script.location() + "\" was rejected by Redis ("
                + rejected.getMessage() + ")", "a Lua script that Redis compiles", rejected);
    }
}
