package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.FaultyProxy;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisRateLimitStore} on a real {@code redis-server} (one per class), as the runtime builds it (decisions
 * combined): the rate-limit contract, concurrency permits (taking, renewing, returning), a script that fails or
 * answers in another shape, and the one retry after a broken connection that a timeout does not get.
 */
class RedisRateLimitStoreTest extends AbstractRateLimitContractTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final long SECOND = 1_000_000L;

    private final List<RedisConnector> connectors = new ArrayList<>();
    private final AtomicInteger discarded = new AtomicInteger();

    @TempDir
    Path dir;

    @Override
    protected RateLimitStore freshStore() {
        return store(REDIS.settings(), Map.of());
    }

    /** A store as the runtime builds it, with the operator's replacements {@code scripts} (name to location). */
    private RedisRateLimitStore store(RedisSettings settings, Map<String, String> scripts) {
        return store(settings, scripts, RedisRateLimitStore.DEFAULT_SENDERS, RedisRateLimitStore.DEFAULT_BATCH);
    }

    private RedisRateLimitStore store(RedisSettings settings, Map<String, String> scripts, int senders, int batch) {
        RedisConnector connector = RedisConnector.connect(settings);
        connectors.add(connector);
        return new RedisRateLimitStore(ScriptExecutor.of(connector), RedisRateLimitStore.Scripts.load(scripts),
                RedisSettings.Mode.STANDALONE, () -> {
                    discarded.incrementAndGet();
                    connector.discardIdleConnections();
                }, senders, batch);
    }

    /** Writes an operator's replacement of the script {@code name} and answers its location. */
    private String replacement(String name, String source) throws IOException {
        Path file = Files.writeString(dir.resolve(name + ".lua"), source, StandardCharsets.UTF_8);
        return "file:" + file;
    }

    @AfterEach
    void closeConnectors() {
        connectors.forEach(RedisConnector::close);
    }

    static BucketRequest permit(String key, int permits, String id) {
        return BucketRequest.permits(key, ChargeMode.CONCURRENCY, new BucketRequest.Permit(permits, 60_000, id));
    }

    static BucketRequest rate(String key, long capacity) {
        return new BucketRequest(key, 1, List.of(BucketRequest.Limit.ofMicros(3600 * SECOND, capacity)),
                ChargeMode.ENFORCE);
    }

    @Test
    void permitsAreTakenUpToTheLimitRenewedWhileHeldAndReturnedAsACount() {
        RateLimitStore store = freshStore();
        assertThat(store.consume(List.of(permit("x", 2, "a"), rate("r", 5))))
                .extracting(BucketOutcome::allowed, BucketOutcome::remaining)
                .containsExactly(tuple(true, 1L), tuple(true, 4L));
        assertThat(store.consume(List.of(permit("x", 2, "b"))).get(0).remaining()).isZero();
        assertThat(store.consume(List.of(permit("x", 2, "c"))).get(0).allowed()).isFalse();
        assertThat(store.consume(List.of(permit("y", 1, "a"))).get(0).allowed()).isTrue();

        assertThat(store.renew("x", "a", 60_000)).isTrue();
        assertThat(store.renew("x", "c", 60_000)).as("c holds no permit").isFalse();

        assertThat(store.release(List.of("x", "y", "z"), "a")).isEqualTo(2);
        assertThat(store.release(List.of("x"), "a")).as("already returned").isZero();
        assertThat(store.release(List.of(), "b")).isZero();
        assertThat(store.consume(List.of(permit("x", 2, "c"))).get(0).allowed()).as("a's permit is free").isTrue();
    }

    @Test
    void aRequestWithSeveralBandwidthsIsDeniedByItsTightest() {
        RateLimitStore store = freshStore();
        BucketRequest twoBandwidths = new BucketRequest("k", 1, List.of(
                BucketRequest.Limit.ofMicros(3600 * SECOND, 5), BucketRequest.Limit.ofMicros(3600 * SECOND, 2)),
                ChargeMode.ENFORCE);
        assertThat(store.consume(List.of(twoBandwidths)).get(0).remaining()).isEqualTo(1);
        assertThat(store.consume(List.of(twoBandwidths)).get(0).remaining()).isZero();
        BucketOutcome denied = store.consume(List.of(twoBandwidths)).get(0);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.tightest()).isEqualTo(1);
    }

    @Test
    void aScriptFailingInRedisIsNamedWithItsLocation() throws IOException {
        String gcra = replacement("gcra", "return redis.error_reply('broken replacement')");
        String extend = replacement("semaphore-extend", "return redis.error_reply('broken extend')");
        RateLimitStore store = store(REDIS.settings(), Map.of("gcra", gcra, "semaphore-extend", extend));
        assertThatThrownBy(() -> store.consume(List.of(rate("r", 5))))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("gcra").hasMessageContaining(gcra)
                .hasMessageContaining("broken replacement");
        assertThatThrownBy(() -> store.renew("x", "a", 1000))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("semaphore-extend").hasMessageContaining(extend)
                .hasMessageContaining("broken extend");
        assertThat(discarded).as("Redis answered: no connection was broken").hasValue(0);
    }

    @Test
    void aScriptAnsweringInAnotherShapeIsNamedWithItsLocation() throws IOException {
        String gcra = replacement("gcra", "return 'yes'");
        String release = replacement("concurrency-release", "return nil");
        String extend = replacement("semaphore-extend", "return 'yes'");
        RateLimitStore store = store(REDIS.settings(),
                Map.of("gcra", gcra, "concurrency-release", release, "semaphore-extend", extend), 0, 1);
        assertThatThrownBy(() -> store.consume(List.of(rate("r", 5))))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining(gcra).hasMessageContaining("shape");
        assertThatThrownBy(() -> store.renew("x", "a", 1000))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining(extend).hasMessageContaining("shape");
        assertThatThrownBy(() -> store.release(List.of("x"), "a"))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining(release).hasMessageContaining("shape");
    }

    @Test
    void aConnectionBrokenByARestartIsRetriedOnceOnAFreshOne() {
        REDIS.assumeControllable();
        RateLimitStore store = freshStore();
        assertThat(store.consume(List.of(rate("r", 5))).get(0).allowed()).isTrue();
        assertThat(store.consume(List.of(permit("x", 1, "a"))).get(0).allowed()).isTrue();
        REDIS.stop();
        REDIS.start();

        assertThat(store.consume(List.of(rate("r", 5))).get(0).remaining()).as("a fresh bucket after the restart")
                .isEqualTo(4);
        assertThat(discarded).as("idle connections discarded").hasValue(1);
        REDIS.stop();
        REDIS.start();
        assertThat(store.renew("x", "a", 1000)).as("the permit went with the restart").isFalse();
        assertThat(discarded).hasValue(2);
    }

    @Test
    void aTimeoutIsNotRetried() {
        REDIS.assumeControllable();
        RateLimitStore store = store(REDIS.settings(Duration.ofMillis(300)), Map.of());
        store.consume(List.of(rate("r", 5)));
        REDIS.pause();
        try {
            assertThatThrownBy(() -> store.consume(List.of(rate("r", 5))))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> store.renew("x", "a", 1000)).isInstanceOf(StoreUnavailableException.class);
        } finally {
            REDIS.resume();
        }
        assertThat(discarded).as("no retry on a fresh connection").hasValue(0);
    }

    @Test
    void callsQueuedBehindOneInFlightGoTogetherAndAFailingCallFailsOnlyItsCaller() throws Exception {
        String answering = keyAnswering();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try (FaultyProxy proxy = FaultyProxy.start(REDIS.host(), REDIS.port())) {
            RedisRateLimitStore store = oneSenderThrough(proxy, answering);
            store.consume(List.of(rate("k7", 1)));
            REDIS.resetStats();

            proxy.stall(true);
            Future<Long> first = threads.submit(() -> store.consume(List.of(rate("k1", 1))).get(0).remaining());
            await().atMost(Duration.ofSeconds(10)).until(() -> proxy.heldChunks() > 0);
            List<Thread> queued = new ArrayList<>();
            List<CompletableFuture<Object>> behind = new ArrayList<>();
            for (String key : List.of("bad", "k3")) {
                CompletableFuture<Object> outcome = new CompletableFuture<>();
                behind.add(outcome);
                threads.submit(() -> {
                    synchronized (queued) {
                        queued.add(Thread.currentThread());
                    }
                    try {
                        outcome.complete(store.consume(List.of(rate(key, 1))).get(0).remaining());
                    } catch (RuntimeException e) {
                        outcome.complete(e);
                    }
                });
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                synchronized (queued) {
                    return queued.size() == 2 && queued.stream().allMatch(t -> t.getState() == Thread.State.WAITING);
                }
            });
            proxy.stall(false);

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
            assertThat(behind.get(0).get(10, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class)
                    .asString().contains(answering, "bad key");
            assertThat(behind.get(1).get(10, TimeUnit.SECONDS)).isEqualTo(3L);
            assertThat(REDIS.commandCount("evalsha")).as("one each; the queued two in one pipeline").isEqualTo(3);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aCallQueuedAloneBehindOneInFlightIsSentOnItsOwnAndAScriptErrorFailsOnlyItsCaller() throws Exception {
        String answering = keyAnswering();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (FaultyProxy proxy = FaultyProxy.start(REDIS.host(), REDIS.port())) {
            RedisRateLimitStore store = oneSenderThrough(proxy, answering);
            store.consume(List.of(rate("k7", 1)));
            for (String key : List.of("k5", "bad")) {
                REDIS.resetStats();
                proxy.stall(true);
                Future<Long> first = threads.submit(() -> store.consume(List.of(rate("k1", 1))).get(0).remaining());
                await().atMost(Duration.ofSeconds(10)).until(() -> proxy.heldChunks() > 0);
                AtomicReference<Thread> waiter = new AtomicReference<>();
                Future<Object> queued = threads.submit(() -> {
                    waiter.set(Thread.currentThread());
                    try {
                        return store.consume(List.of(rate(key, 1))).get(0).remaining();
                    } catch (RuntimeException e) {
                        return e;
                    }
                });
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.WAITING);
                proxy.stall(false);

                assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
                if (key.equals("bad")) {
                    assertThat(queued.get(10, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class)
                            .asString().contains(answering, "bad key");
                } else {
                    assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(5L);
                }
                assertThat(REDIS.commandCount("evalsha")).as("one each").isEqualTo(2);
            }
            assertThat(store.consume(List.of(rate("k9", 1))).get(0).remaining()).as("the combiner left free")
                    .isEqualTo(9L);
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * A replacement of gcra.lua that answers a key {@code k<n>} as admitted with n tokens left and fails the key
     * {@code bad} with a script error: which caller got which reply shows at a glance.
     */
    private String keyAnswering() throws IOException {
        return replacement("gcra", "if KEYS[1] == 'bad' then return redis.error_reply('bad key') end "
                + "return {1, tonumber(string.sub(KEYS[1], 2)), 0, 0, 0}");
    }

    /** A store with one sender slot, running {@code gcra}, through {@code proxy}. */
    private RedisRateLimitStore oneSenderThrough(FaultyProxy proxy, String gcra) {
        return store(SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", proxy.uri()))).redis(),
                Map.of("gcra", gcra), 1, 64);
    }

    /**
     * A connection broken after the script ran (its reply lost with it) is retried once on a fresh connection, under
     * the same permit id: with one permit per key the retry finds the request's own permit and is admitted.
     */
    @Test
    void theRetryAfterAConnectionBrokenOnTheReplyIsGrantedItsOwnPermit() throws Exception {
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (FaultyProxy proxy = FaultyProxy.start(REDIS.host(), REDIS.port())) {
            RateLimitStore store = store(SluiceConfigLoader.load(ConfigSources.of(
                    Map.of("sluice.redis.uri", proxy.uri()))).redis(), Map.of());
            store.consume(List.of(rate("warm", 1)));
            proxy.dropReplies(true);
            Future<BucketOutcome> decided = threads.submit(() -> store.consume(List.of(permit("x", 1, "a"))).get(0));
            await().atMost(Duration.ofSeconds(10)).until(() -> proxy.swallowedBytes() > 0);
            proxy.dropReplies(false);
            proxy.cutAll();

            BucketOutcome outcome = decided.get(10, TimeUnit.SECONDS);
            assertThat(discarded).as("retried on a fresh connection").hasValue(1);
            assertThat(outcome.allowed()).as("the retry finds its own permit").isTrue();
            assertThat(store.consume(List.of(permit("x", 1, "b"))).get(0).allowed()).as("held once").isFalse();
            assertThat(store.release(List.of("x"), "a")).isEqualTo(1);
        } finally {
            threads.shutdownNow();
        }
    }

    /** gcra.lua answers arguments it does not read with an error naming the fields, before touching any key. */
    @Test
    void theScriptRefusesAPolicyWhoseFieldsItDoesNotRead() {
        String source = LuaScript.bundled("gcra").source();
        for (List<String> args : List.of(List.of("1", "bucket", "2", "if-all-admit", "1", "1", "1000", "1", "5"),
                List.of("1", "bucket", "1", "sometimes", "1", "1", "1000", "1", "5"),
                List.of("1", "permits", "1", "always", "1", "1000", "p"),
                List.of("1", "0", "1", "1", "1000", "1", "5"))) {
            assertThatThrownBy(() -> REDIS.admin().eval(source, List.of("x"), args)).as("%s", args)
                    .hasMessageContaining("gcra.lua: policy 1 has kind");
            assertThat(REDIS.admin().exists("x")).isFalse();
        }
    }
}
