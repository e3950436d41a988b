package dev.sluice.internal.runtime;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.test.RedisServer;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request threads on virtual threads (JDK 21+), many more of them than the Redis pool has connections, each deciding
 * rate limits and taking locks and semaphore permits through Sluice's real Redis path:
 * <ul>
 *   <li>nobody deadlocks on the exhausted pool: every caller finishes, its Redis calls served by connections
 *       that others gave back, with no failure (the pool's max wait is far longer than the scenario);</li>
 *   <li>no virtual thread pins its carrier while it waits (for a connection, a reply, a lock or a permit):
 *       the JFR event {@code jdk.VirtualThreadPinned}, recorded during the scenario with no threshold, has no
 *       event whose stack passes through Sluice, Jedis or its pool.</li>
 * </ul>
 * On JDK 24 and later a virtual thread blocked inside {@code synchronized} does not pin its carrier (JEP 491), so
 * the JDK 25 run of the core suite also runs this class with {@code -XX:LockingMode=1}, the monitors of JDK 21 to
 * 23, under which a blocking call inside {@code synchronized} pins and is recorded (core's POM, profile
 * {@code jdk25}, execution {@code jdk25-monitors-of-jdk21}); there a wait to enter a monitor that another thread
 * holds is allowed (see {@link #contendedMonitorEnter}). Both runs have two carriers and no compensating ones, so
 * that a pinned carrier shows as a stall, not as an extra carrier: with {@code Lease}'s store calls under a monitor,
 * two holders extending their locks at once pinned both carriers waiting for the combined call whose sender then
 * never ran, and every caller hung.
 *
 * <p>Compiled for Java 17: the virtual threads come from {@code Executors.newVirtualThreadPerTaskExecutor()}, called
 * reflectively.
 */
@EnabledForJreRange(minVersion = 21)
class VirtualThreadCallersTest {

    private static final int POOL = 4;
    private static final int CALLERS = 200;
    private static final int ROUNDS = 5;
    private static final int LOCK_KEYS = 4;
    private static final int PERMITS = 3;
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Far beyond what the scenario takes: a caller that runs out of it has met a deadlock, not a slow machine. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);
    private static final List<String> OURS = List.of("dev.sluice.", "redis.clients.", "org.apache.commons.pool2.");

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    @TempDir
    Path dir;

    @Test
    void manyMoreVirtualThreadsThanConnectionsAreAllServedAndNonePinsItsCarrier() throws Exception {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.redis.pool.max-total", Integer.toString(POOL),
                "sluice.redis.pool.max-idle", Integer.toString(POOL),
                "sluice.redis.pool.max-wait", LONG_WAIT.toSeconds() + "s",
                "sluice.limit.api.rate", "1000000/1s")));
        try (SluiceRuntime runtime = SluiceRuntime.start(config)) {
            Callers callers = new Callers(runtime, config.policy("api").orElseThrow());

            // Unrecorded: loads every class the scenario uses and opens the pool's connections. A virtual thread that
            // loads or initializes a class pins its carrier meanwhile (the JVM's own frames), once per class and JVM;
            // that is not waiting for Redis.
            callers.run(1);
            callers.assertAllServed(1);

            List<RecordedEvent> pinned;
            try (Recording recording = new Recording()) {
                recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
                recording.start();
                callers.run(ROUNDS);
                recording.stop();
                Path file = dir.resolve("pinned.jfr");
                recording.dump(file);
                pinned = RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
            }

            callers.assertAllServed(1 + ROUNDS);
            boolean monitorsPin = monitorsPin();
            List<RecordedEvent> ours = pinned.stream().filter(VirtualThreadCallersTest::passesThroughOurCode)
                    .filter(e -> !(monitorsPin && contendedMonitorEnter(e))).toList();
            assertThat(ours).as("jdk.VirtualThreadPinned events through Sluice, Jedis or its pool (of %d in all):%n%s",
                    pinned.size(), describe(ours)).isEmpty();
            System.out.printf("%d virtual threads, pool of %d, %d rounds: %d decisions, %d locks, %d permits; monitors "
                    + "pin: %s; pinned events: %d%n", CALLERS, POOL, 1 + ROUNDS, callers.decided.sum(),
                    CALLERS * (1 + ROUNDS), CALLERS * (1 + ROUNDS), monitorsPin, pinned.size());
        }
    }

    /**
     * {@link #CALLERS} virtual threads, each deciding a rate limit, then taking one of {@link #LOCK_KEYS} locks
     * and one permit of a semaphore of {@link #PERMITS}, deciding again while holding each.
     */
    private static final class Callers {
        final SluiceRuntime runtime;
        final RateLimitEngine limits;
        final PolicyConfig api;
        final DistributedSemaphore render;
        final LongAdder decided = new LongAdder();
        final AtomicInteger[] inside = new AtomicInteger[LOCK_KEYS];
        final AtomicInteger permitsInUse = new AtomicInteger();
        final Queue<String> violations = new ConcurrentLinkedQueue<>();
        final Map<String, Throwable> failures = new ConcurrentHashMap<>();
        Callers(SluiceRuntime runtime, PolicyConfig api) {
            this.runtime = runtime;
            this.limits = runtime.rateLimits();
            this.api = api;
            this.render = runtime.locks().semaphore("render", PERMITS);
            for (int k = 0; k < LOCK_KEYS; k++) {
                inside[k] = new AtomicInteger();
            }
        }

        void run(int rounds) throws Exception {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> running = new ArrayList<>();
            ExecutorService virtualThreads = virtualThreadPerTaskExecutor();
            try {
                for (int c = 0; c < CALLERS; c++) {
                    String client = "198.51.100." + c;
                    int key = c % LOCK_KEYS;
                    running.add(virtualThreads.submit(() -> {
                        start.await();
                        for (int round = 0; round < rounds; round++) {
                            call(client, key);
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (int c = 0; c < CALLERS; c++) {
                    try {
                        running.get(c).get(LONG_WAIT.toSeconds() * 2, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        failures.put("caller " + c, e.getCause());
                    }
                }
            } finally {
                virtualThreads.shutdownNow();
            }
        }

        private void call(String client, int key) {
            decide(client);
            try (LockHandle lock = runtime.locks().lock("order:" + key).acquire(LEASE, LONG_WAIT)) {
                if (inside[key].incrementAndGet() != 1) {
                    violations.add("two holders of order:" + key);
                }
                decide(client);
                if (!lock.extend(LEASE)) {
                    violations.add("order:" + key + " lost while held");
                }
                inside[key].decrementAndGet();
            }
            try (Permit permit = render.acquire(LEASE, LONG_WAIT)) {
                if (permitsInUse.incrementAndGet() > PERMITS) {
                    violations.add("more than " + PERMITS + " permits of render in use");
                }
                decide(client);
                permitsInUse.decrementAndGet();
            }
        }

        /** One rate-limit decision; a failure to reach Redis (an exhausted pool among them) throws. */
        private void decide(String client) {
            if (!limits.decide(api, client, 1).allowed()) {
                throw new AssertionError("refused by a limit of a million a second: " + client);
            }
            decided.increment();
        }

        void assertAllServed(int rounds) {
            assertThat(failures).as("callers that failed").isEmpty();
            assertThat(violations).as("mutual exclusion and permit count").isEmpty();
            assertThat(decided.sum()).as("rate-limit decisions made by Redis").isEqualTo(3L * CALLERS * rounds);
        }
    }

    /**
     * Whether a virtual thread waiting for or inside a monitor pins its carrier: JDK 21 to 23, or a later JDK run with
     * {@code -XX:LockingMode=1}.
     */
    private static boolean monitorsPin() {
        if (Runtime.version().feature() < 24) {
            return true;
        }
        var vm = java.lang.management.ManagementFactory.getPlatformMXBean(
                com.sun.management.HotSpotDiagnosticMXBean.class);
        try {
            return vm.getVMOption("LockingMode").getValue().equals("1");
        } catch (IllegalArgumentException noSuchOption) {
            return false;
        }
    }

    /**
     * A wait to enter a monitor that another thread holds. Where monitors pin, every contended {@code synchronized}
     * pins for as long as the holder keeps it; Sluice's remaining monitors guard in-memory bookkeeping only (the
     * lock queues), whose holder never waits inside, and a holder that did wait inside would be recorded itself.
     */
    private static boolean contendedMonitorEnter(RecordedEvent event) {
        return event.hasField("blockingOperation")
                && "Contended monitor enter".equals(event.getString("blockingOperation"));
    }

    private static boolean passesThroughOurCode(RecordedEvent event) {
        return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                .map(f -> f.getMethod().getType().getName())
                .anyMatch(type -> OURS.stream().anyMatch(type::startsWith));
    }

    /** The distinct stacks of {@code events}, most frequent first, each with its count and pinning reason. */
    private static String describe(List<RecordedEvent> events) {
        Map<String, Long> stacks = events.stream().collect(Collectors.groupingBy(e -> {
            String reason = (e.hasField("blockingOperation") ? e.getString("blockingOperation") + ", " : "")
                    + (e.hasField("pinnedReason") ? e.getString("pinnedReason") : "");
            String frames = e.getStackTrace() == null ? "(no stack)" : e.getStackTrace().getFrames().stream()
                    .limit(40).map(VirtualThreadCallersTest::frame).collect(Collectors.joining("\n    "));
            return "pinned (" + reason + ") at\n    " + frames;
        }, Collectors.counting()));
        return stacks.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .map(s -> s.getValue() + " x " + s.getKey()).collect(Collectors.joining("\n"));
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName() + " line " + f.getLineNumber();
    }

    private static ExecutorService virtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
