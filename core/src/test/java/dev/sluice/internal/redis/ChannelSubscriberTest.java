package dev.sluice.internal.redis;

import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The release and reset channels' subscriber against a real Redis whose server drops the subscription
 * ({@code CLIENT KILL TYPE pubsub}): every loss is told once, the regained subscription too, and messages flow
 * again after each.
 */
class ChannelSubscriberTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private static final String CHANNEL = "sluice:test:released";

    private final Lines log = new Lines();
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final AtomicInteger subscribed = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(1_000);
    private UnifiedJedis client;
    private ChannelSubscriber subscriber;

    @BeforeEach
    void subscribe() throws InterruptedException {
        client = RedisClient.create(redis.uri());
        Supplier<UnifiedJedis> clients = () -> client;
        subscriber = new ChannelSubscriber(log, clients, CHANNEL, messages::add, subscribed::incrementAndGet,
                "waiters poll meanwhile", nanos::get);
        assertThat(subscriber.awaitSubscribed(5_000)).as("subscribed within 5 s").isTrue();
    }

    @AfterEach
    void close() {
        subscriber.close();
        client.close();
    }

    @Test
    void everyLostSubscriptionIsToldOnceAndEveryRegainedOneToo() {
        for (int loss = 1; loss <= 3; loss++) {
            awaitListening();
            nanos.addAndGet(ChannelSubscriber.QUIET_NANOS);
            redis.admin().sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
            int losses = loss;
            await("warning of loss " + loss).atMost(Duration.ofSeconds(10))
                    .until(() -> log.at(System.Logger.Level.WARNING).size() == losses);
            await("notice of the regained subscription " + loss).atMost(Duration.ofSeconds(10))
                    .until(() -> log.at(System.Logger.Level.INFO).size() == losses);
        }
        List<String> warnings = log.at(System.Logger.Level.WARNING);
        assertThat(warnings).allSatisfy(w -> assertThat(w)
                .contains("lost the subscription to " + CHANNEL).contains("waiters poll meanwhile"));
        assertThat(log.at(System.Logger.Level.INFO))
                .allSatisfy(i -> assertThat(i).contains("subscribed to " + CHANNEL + " again"));

        awaitListening();
        redis.admin().publish(CHANNEL, "lock:invoice:7");
        await("the message after three losses").atMost(Duration.ofSeconds(5))
                .until(() -> messages.contains("lock:invoice:7"));
        assertThat(subscribed.get()).as("onSubscribed ran for the first subscription, each loss and each regain")
                .isGreaterThanOrEqualTo(1 + 3 + 3);
    }

    @Test
    void aFlappingSubscriptionIsToldAtMostOnceEachWayPerQuietTimeTheRestAtDebug() {
        for (int loss = 1; loss <= 3; loss++) {
            awaitListening();
            redis.admin().sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
            int losses = loss;
            await("loss " + loss + " told").atMost(Duration.ofSeconds(10))
                    .until(() -> log.containing("lost the subscription").size() == losses);
            await("return " + loss + " told").atMost(Duration.ofSeconds(10))
                    .until(() -> log.containing("subscribed to " + CHANNEL + " again").size() == losses);
        }
        assertThat(log.at(System.Logger.Level.WARNING)).hasSize(1);
        assertThat(log.at(System.Logger.Level.INFO)).hasSize(1);
        assertThat(log.at(System.Logger.Level.DEBUG)).as("two losses and two returns within the quiet time")
                .hasSize(4).allSatisfy(line -> assertThat(line).containsAnyOf("lost the subscription",
                        "subscribed to " + CHANNEL + " again"));
    }

    @Test
    void aSubscriptionThatNeverComesBackIsToldOnceWhileItRetries() {
        awaitListening();
        redis.assumeControllable();
        redis.stop();
        await("the warning").atMost(Duration.ofSeconds(10))
                .until(() -> log.at(System.Logger.Level.WARNING).size() == 1);
        int before = subscribed.get();
        await("retries, each running onSubscribed").atMost(Duration.ofSeconds(10))
                .until(() -> subscribed.get() >= before + 2);
        assertThat(log.at(System.Logger.Level.WARNING)).as("one warning however many retries fail").hasSize(1);
        assertThat(log.at(System.Logger.Level.INFO)).isEmpty();
    }

    @Test
    void aClosedSubscriberLeavesTheChannelAndItsThreadEnds() throws InterruptedException {
        subscriber.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> listeners() == 0L);
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<String> mine = new CopyOnWriteArrayList<>();
        ChannelSubscriber closing = new ChannelSubscriber(log, () -> client, CHANNEL, mine::add, () -> { }, "-");
        assertThat(closing.awaitSubscribed(5_000)).isTrue();
        Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().startsWith("sluice-subscriber-"))
                .findFirst().orElseThrow();
        assertThat(thread.isDaemon()).as("never keeps a JVM alive").isTrue();

        closing.close();

        await("unsubscribed").atMost(Duration.ofSeconds(5)).until(() -> listeners() == 0L);
        await("its thread ended").atMost(Duration.ofSeconds(5)).until(() -> !thread.isAlive());
        redis.admin().publish(CHANNEL, "lock:after-close");
        assertThat(mine).isEmpty();
    }

    private void awaitListening() {
        await("the subscriber listening").atMost(Duration.ofSeconds(10))
                .until(() -> listeners() == 1L);
    }

    private static long listeners() {
        List<?> reply = (List<?>) redis.admin().sendCommand(Protocol.Command.PUBSUB, "NUMSUB", CHANNEL);
        return (Long) reply.get(1);
    }

    /** A {@code System.Logger} keeping each message with its level. */
    private static final class Lines implements System.Logger {
        private final List<Map.Entry<Level, String>> lines = new CopyOnWriteArrayList<>();

        List<String> containing(String text) {
            return lines.stream().map(Map.Entry::getValue).filter(line -> line.contains(text)).toList();
        }

        List<String> at(Level level) {
            return lines.stream().filter(e -> e.getKey() == level).map(Map.Entry::getValue).toList();
        }

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            lines.add(Map.entry(level, msg));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            lines.add(Map.entry(level, params == null || params.length == 0 ? format
                    : java.text.MessageFormat.format(format, params)));
        }
    }
}
