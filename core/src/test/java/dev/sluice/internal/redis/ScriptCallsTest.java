package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.test.FaultyProxy;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a broken connection, a timeout and a script error cost one call, through a proxy that breaks connections
 * ({@link FaultyProxy}) in front of a real Redis: a store that may run a call twice gets it sent again once on a
 * fresh connection, one that may not gets the failure, a timeout is never sent again, and a script's own error
 * reaches its caller as Redis answered it. The same whether the store combines calls (its lone calls take the
 * combiner's free slot) or sends each alone.
 */
class ScriptCallsTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private final LuaScript incr = LuaScript.bundled("test-incr");
    private final AtomicInteger discards = new AtomicInteger();
    private FaultyProxy proxy;
    private RedisConnector connector;

    @BeforeEach
    void connect() {
        proxy = FaultyProxy.start(redis.host(), redis.port());
        connector = RedisConnector.connect(new RedisSettings(Optional.of(new RedisAddress(proxy.host(), proxy.port())),
                List.of(), Optional.empty(), List.of(), List.of(), Optional.empty(), Optional.empty(), 0, false,
                Duration.ofMillis(500), RedisSettings.Pool.DEFAULT, true));
    }

    @AfterEach
    void close() {
        connector.close();
        proxy.close();
    }

    private ScriptCalls calls(int senders, ScriptCalls.OnBrokenConnection onBroken) {
        return new ScriptCalls(ScriptExecutor.of(connector), RedisSettings.Mode.STANDALONE, senders, 8, onBroken,
                discards::incrementAndGet);
    }

    private Object incr(ScriptCalls calls) {
        return calls.eval(incr, List.of("counter"), List.of("1"));
    }

    @ParameterizedTest(name = "{0} senders")
    @ValueSource(ints = {0, 2})
    void aCallThatMayRunTwiceIsSentAgainOnceOnAFreshConnection(int senders) {
        ScriptCalls calls = calls(senders, ScriptCalls.OnBrokenConnection.RETRY_ONCE);
        assertThat(incr(calls)).isEqualTo(1L);

        proxy.cutAll();

        assertThat(incr(calls)).as("sent again").isEqualTo(2L);
        assertThat(discards).as("the idle connections discarded before the retry").hasValue(1);
        assertThat(incr(calls)).isEqualTo(3L);
        assertThat(discards).hasValue(1);
    }

    @ParameterizedTest(name = "{0} senders")
    @ValueSource(ints = {0, 2})
    void aCallThatMustNotRunTwiceFailsWithTheBrokenConnection(int senders) {
        ScriptCalls calls = calls(senders, ScriptCalls.OnBrokenConnection.FAIL);
        assertThat(incr(calls)).isEqualTo(1L);

        proxy.cutAll();

        assertThatThrownBy(() -> incr(calls)).isInstanceOf(JedisConnectionException.class);
        assertThat(discards).hasValue(0);
        assertThat(incr(calls)).as("the next call on a fresh connection").isEqualTo(2L);
    }

    @Test
    void aStoreWhoseCallsGoAloneFailsABrokenConnection() {
        ScriptCalls calls = ScriptCalls.alone(ScriptExecutor.of(connector));
        assertThat(incr(calls)).isEqualTo(1L);

        proxy.cutAll();

        assertThatThrownBy(() -> incr(calls)).isInstanceOf(JedisConnectionException.class);
        assertThat(incr(calls)).isEqualTo(2L);
    }

    @Test
    void aStoreBuiltFromItsSettingsKeepsItsChoiceOnABrokenConnectionWithOrWithoutPipelining() {
        for (boolean pipelining : List.of(true, false)) {
            ScriptCalls calls = ScriptCalls.of(ScriptExecutor.of(connector), RedisSettings.Mode.STANDALONE,
                    pipelining, ScriptCalls.OnBrokenConnection.RETRY_ONCE, discards::incrementAndGet);
            redis.admin().del("counter");
            discards.set(0);
            assertThat(incr(calls)).isEqualTo(1L);
            proxy.cutAll();
            assertThat(incr(calls)).as("pipelining %s: the store's own choice on a broken connection", pipelining)
                    .isEqualTo(2L);
            assertThat(discards).hasValue(1);
        }
    }

    @ParameterizedTest(name = "{0} senders")
    @ValueSource(ints = {0, 2})
    void aTimeoutIsNeverSentAgain(int senders) {
        ScriptCalls calls = calls(senders, ScriptCalls.OnBrokenConnection.RETRY_ONCE);
        assertThat(incr(calls)).isEqualTo(1L);
        redis.resetStats();

        long connections = proxy.accepted();
        proxy.stall(true);
        assertThatThrownBy(() -> incr(calls)).isInstanceOf(JedisConnectionException.class)
                .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(discards).hasValue(0);
        assertThat(proxy.accepted()).as("no connection opened for a retry").isEqualTo(connections);
        proxy.stall(false);
        proxy.cutAll();

        await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(JedisConnectionException.class)
                .until(() -> incr(calls) instanceof Long);
        assertThat(redis.commandCount("evalsha")).as("the timed-out call ran at most once, and one more")
                .isBetween(1L, 2L);
    }

    @ParameterizedTest(name = "{0} senders")
    @ValueSource(ints = {0, 2})
    void aScriptErrorReachesItsCallerAsRedisAnsweredIt(int senders) {
        ScriptCalls calls = calls(senders, ScriptCalls.OnBrokenConnection.RETRY_ONCE);
        LuaScript failing = LuaScript.of("failing", "return redis.error_reply('MINE no such order')", "test");

        assertThatThrownBy(() -> calls.eval(failing, List.of("k"), List.of()))
                .isInstanceOf(JedisDataException.class).hasMessage("MINE no such order");
        assertThat(discards).hasValue(0);
        assertThat(incr(calls)).as("the combiner left free").isEqualTo(1L);
    }

    @Test
    void aCallWithoutKeysIsRefusedBeforeAnythingIsSent() {
        redis.resetStats();
        for (ScriptCalls calls : List.of(calls(0, ScriptCalls.OnBrokenConnection.FAIL),
                calls(2, ScriptCalls.OnBrokenConnection.FAIL))) {
            assertThatThrownBy(() -> calls.eval(incr, List.of(), List.of("1")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("test-incr");
        }
        assertThat(redis.commandCount("evalsha")).isZero();
    }
}
