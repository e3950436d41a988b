package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisSettings.Mode;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.ClusterCommandArguments;
import redis.clients.jedis.ClusterCommandObjects;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Sluice's own {@code EVALSHA} command must be Jedis's, byte for byte and reply for reply. */
class ScriptCommandTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    /** Every reply shape a script can give: integers, bulk strings, nested arrays, nil, status, an error within. */
    private static final LuaScript SHAPES = LuaScript.of("shapes", """
            local shape = ARGV[1]
            if shape == 'integers' then return {1, 0, -7, 1000000, 42} end
            if shape == 'strings' then return {'a', ARGV[2], 'é'} end
            if shape == 'nested' then return {1, {2, 'b', {3}}, 'c', {}} end
            if shape == 'nil' then return nil end
            if shape == 'empty' then return {} end
            if shape == 'status' then return redis.status_reply('OK') end
            if shape == 'string' then return ARGV[2] end
            if shape == 'integer' then return 12 end
            if shape == 'error-within' then return {1, redis.error_reply('ERR inner')} end
            if shape == 'keys' then return KEYS end
            return redis.error_reply('ERR no shape ' .. shape)
            """, "test:shapes");

    private RedisConnector connector;

    @BeforeEach
    void connect() {
        connector = RedisConnector.connect(redis.settings());
        connector.client().scriptLoad(SHAPES.source());
    }

    @AfterEach
    void close() {
        connector.close();
    }

    @Test
    void sendsTheArgumentsJedisOwnEvalshaSends() {
        List<List<String>> keyLists = List.of(List.of("sluice:rl:{login:203.0.113.7}"),
                List.of("a", "b:1", "{x}é"), List.of("7"));
        List<String> args = List.of("1", "0", "9", "10", "99", "999", "1000", "007", "0x1", "-1", "", " 1", "1 ",
                "bucket", "if-all-admit", "1000000", "12345678901234567890", "é", "\u0000", "node:7f");
        for (List<String> keys : keyLists) {
            assertThat(raw(ScriptCommand.evalsha(SHAPES, keys, args, Mode.STANDALONE).getArguments()))
                    .isEqualTo(raw(new CommandObjects().evalsha(SHAPES.sha(), keys, args).getArguments()));
            assertThat(ScriptCommand.evalsha(SHAPES, keys, args, Mode.STANDALONE).getArguments().getKeys())
                    .hasSameSizeAs(keys);
        }
    }

    @Test
    void smallDecimalNumbersAreEncodedOnceAndEverythingElseOnEveryCall() {
        for (String small : List.of("0", "1", "9", "10", "99", "100", "999")) {
            assertThat(ScriptCommand.encode(small)).as(small).isSameAs(ScriptCommand.encode(small));
        }
        for (String other : List.of("1000", "007", "00", "-1", "", "1a", "a1", "/", ":")) {
            assertThat(ScriptCommand.encode(other)).as(other).isNotSameAs(ScriptCommand.encode(other));
            assertThat(ScriptCommand.encode(other).getRaw()).as(other)
                    .isEqualTo(other.getBytes(StandardCharsets.UTF_8));
        }
        List<Rawable> one = new ArrayList<>();
        List<Rawable> other = new ArrayList<>();
        ScriptCommand.evalsha(SHAPES, List.of("k"), List.of(), Mode.STANDALONE).getArguments().forEach(one::add);
        ScriptCommand.evalsha(SHAPES, List.of("j"), List.of(), Mode.STANDALONE).getArguments().forEach(other::add);
        assertThat(one.get(1)).as("the SHA").isSameAs(other.get(1));
        assertThat(one.get(2)).as("the key count").isSameAs(other.get(2));
    }

    @Test
    void inClusterItsArgumentsKnowTheKeysSlotAsJedisOwnDo() {
        List<String> keys = List.of("sluice:rl:{login:203.0.113.7}", "sluice:rl:{login:203.0.113.7}:1");
        List<String> args = List.of("1", "bucket");

        CommandArguments ours = ScriptCommand.evalsha(SHAPES, keys, args, Mode.CLUSTER).getArguments();
        CommandArguments jedis = new ClusterCommandObjects().evalsha(SHAPES.sha(), keys, args).getArguments();

        assertThat(ours).isInstanceOf(ClusterCommandArguments.class);
        assertThat(((ClusterCommandArguments) ours).getCommandHashSlot())
                .isEqualTo(((ClusterCommandArguments) jedis).getCommandHashSlot()).isNotNegative();
        assertThat(raw(ours)).isEqualTo(raw(jedis));
    }

    @Test
    void answersAsJedisOwnEvalshaAnswers() {
        UnifiedJedis jedis = connector.client();
        for (String shape : List.of("integers", "strings", "nested", "nil", "empty", "status", "string", "integer",
                "keys")) {
            List<String> keys = List.of("k1", "k2");
            List<String> args = List.of(shape, "välue");

            Object ours = jedis.executeCommand(ScriptCommand.evalsha(SHAPES, keys, args, Mode.STANDALONE));

            assertThat(ours).as(shape).isEqualTo(jedis.evalsha(SHAPES.sha(), keys, args));
        }
        assertThat(jedis.executeCommand(ScriptCommand.evalsha(SHAPES, List.of("k"), List.of("integers"),
                Mode.STANDALONE))).isEqualTo(List.of(1L, 0L, -7L, 1_000_000L, 42L));
    }

    @Test
    void anErrorWithinAReplyIsKeptInItsPlaceAndAnErrorReplyThrows() {
        UnifiedJedis jedis = connector.client();

        Object within = jedis.executeCommand(ScriptCommand.evalsha(SHAPES, List.of("k"), List.of("error-within"),
                Mode.STANDALONE));

        Object theirs = jedis.evalsha(SHAPES.sha(), List.of("k"), List.of("error-within"));
        for (Object reply : List.of(within, theirs)) {
            assertThat(reply).asList().hasSize(2).first().isEqualTo(1L);
            assertThat(((List<?>) reply).get(1)).isInstanceOfSatisfying(JedisDataException.class,
                    inner -> assertThat(inner).hasMessage("ERR inner"));
        }
        assertThatThrownBy(() -> jedis.executeCommand(ScriptCommand.evalsha(SHAPES, List.of("k"),
                List.of("unknown"), Mode.STANDALONE))).isInstanceOf(JedisDataException.class)
                .hasMessage("ERR no shape unknown");
    }

    /** The arguments as the bytes Jedis writes for them, the command first, as text for readable failures. */
    private static List<String> raw(CommandArguments arguments) {
        List<String> bytes = new ArrayList<>();
        for (Rawable argument : arguments) {
            bytes.add(new String(argument.getRaw(), StandardCharsets.ISO_8859_1));
        }
        return bytes;
    }
}
