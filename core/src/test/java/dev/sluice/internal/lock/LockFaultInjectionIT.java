package dev.sluice.internal.lock;

import dev.sluice.test.FaultyProxy;
import dev.sluice.test.RedisProcess;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fault injection with a fencing checker, after Jepsen and Kleppmann's fencing argument: independent application
 * nodes contend for locks and a semaphore while Redis, the network and the nodes themselves fail, and a checker
 * outside them judges what happened to the data.
 *
 * <p><b>Set-up.</b> Each node is a {@link LockFaultWorker} in a JVM of its own ({@link WorkerJvm}: its own runtime,
 * pool and watchdog, started with this JVM's class path), so that one node can be frozen whole. Per node: two threads
 * on each of three lock keys, one thread on a fourth key whose holder the test can freeze at will, three threads on
 * a semaphore of {@value LockFaultWorker#PERMITS} permits; lease {@value #LEASE_MS} ms, {@code sluice.redis.timeout}
 * {@value #TIMEOUT_MS} ms. Every lock section reads a <em>plain</em> counter (guarded by the lock alone, as a
 * {@code @Locked} method would use a resource that knows nothing of tokens) and a <em>fenced</em> one (whose store
 * refuses a token lower than the highest it has seen, {@link FencingChecker}), works, and writes both back plus one;
 * one section in ten extends its lease to two leases and works one and a half leases (the watchdog must keep it).
 * Sections on the fourth key extend their lease to two leases and can be frozen by the checker's <em>trap</em>
 * between read and write: Kleppmann's read, pause, write.
 *
 * <p><b>Round 1, one Redis</b> (AOF with {@code appendfsync always}, so that it keeps its data across a kill), each
 * node behind its own {@link FaultyProxy}. In cycles, with a calm second after each fault: latency of 150 ms on both
 * links; one node's replies dropped (commands run, answers lost) for {@code 4 x timeout}; one node cut off
 * (connections closed, new ones refused); Redis frozen ({@code SIGSTOP}) for 1.5 leases; Redis killed
 * ({@code kill -9}) and restarted; one node's JVM frozen ({@code SIGSTOP}: the GC pause of the fencing argument).
 * The cut-off and the frozen JVM are aimed: a holder of the fourth key on that node is trapped in its section, one
 * watchdog renewal is let through, the fault is applied and held until the other node has taken the lock, written
 * and left; then the stranded holder goes on and writes. One cycle takes about {@value #CYCLE_SECONDS} s; the round
 * runs two thirds of the requested time in whole cycles, at least one.
 *
 * <p><b>Round 2, Sentinel</b>: a master, a replica whose replication link runs through a proxy, three sentinels, two
 * fresh nodes in Sentinel mode. The replication link is stalled, a holder of the fourth key is trapped in its
 * section (so its lock exists only on the master), the master is killed and the replica, which never saw that lock,
 * promoted: the lock is lost by asynchronous replication, the other node takes it, and the stranded holder then
 * writes.

 * <p><b>What is asserted</b> (counts of violations, whatever the timing):
 * <ul>
 *   <li>no <em>unfenced overlap</em>: two holders of one lock inside at once whose fenced operations the store
 *       accepted interleaved (a lost update in the fenced store), or two holders with one token;</li>
 *   <li>no fencing token at or below the token of a holder that had already left when the new one asked;</li>
 *   <li>no lost update in the fenced counter;</li>
 *   <li>never more than N semaphore holders that still believed they held their permit, unless Redis lost data
 *       while they held it;</li>
 *   <li>no <em>silent</em> lock loss: in every overlap the older holder was told (its handle's {@code isHeld()} was
 *       false right after its section, or {@code close()} threw {@code LockLostException}), unless Redis lost data.
 *       This one depends on issue 16 item 1 (renewals must keep an extended lease): without it a node cut off
 *       while holding an extended lease is never told;</li>
 *   <li>every stranded holder (cut off, frozen, lock lost in the fail-over) was refused by the fenced store;</li>
 *   <li>every fault was injected, and locks and permits were acquired in both rounds; the nodes threw nothing
 *       unexpected.</li>
 * </ul>
 * Overlaps themselves, refused writes and lost updates of the plain counter are counted and printed, not bounded:
 * they are what a lease-based lock cannot prevent when a holder is frozen or cut off longer than its lease, and why
 * the fencing token exists.
 *
 * <p><b>What it does not prove.</b> It samples schedules, it does not enumerate them: a run without a violation is
 * evidence, not proof. Faults are on loopback on one machine (one clock: clock jumps and skew between nodes and Redis
 * are not tested, and the Redis-clock floor of fencing tokens relies on them); no real network partition between
 * Redis processes (the replica is held back by a stalled link instead); Redis Cluster and Redlock are not exercised;
 * the plain counter shows that a lock alone cannot protect a resource that ignores tokens, the fenced counter that a
 * resource checking tokens on every operation stays consistent; a resource checking only writes is not modelled.
 * Liveness is not asserted: how long a lock stays orphaned after a lost reply, or how long callers wait, shows only
 * in the printed timeouts and fail-closed refusals.
 *
 * <p>The default build asks for 30 s; the soak profile ({@code -Psoak}) scales both rounds with
 * {@code -Dsluice.soak.seconds}: round 1 as above, round 2 keeps its load on the new master for a sixth of it.
 */
class LockFaultInjectionIT {

    static final long LEASE_MS = 1200;
    static final long TIMEOUT_MS = 400;
    private static final String MASTER_NAME = "faults";
    private static final Duration CALM = Duration.ofSeconds(1);
    private static final long SECONDS = Long.getLong("sluice.soak.seconds", 30);
    /** About how long one cycle of round 1's faults takes. */
    private static final long CYCLE_SECONDS = 19;
    private static final Path LOGS = Path.of("target", "lock-faults");

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final FencingChecker checker = new FencingChecker(Map.of(LockFaultWorker.SEMAPHORE, LockFaultWorker.PERMITS));
    private final Map<String, Long> workerCounts = new LinkedHashMap<>();
    private final Map<String, Long> roundLocks = new LinkedHashMap<>();
    /** Holders frozen in their section by the checker's trap while a fault passed their lock on, and the fault. */
    private final Map<FencingChecker.Session, String> strandedHolders = new LinkedHashMap<>();
    private long swallowedReplyBytes;
    private long refusedConnections;

    @AfterEach
    void closeAll() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception ignored) {
                // best effort: processes and sockets of a finished test
            }
        }
    }

    @Test
    void locksAndSemaphoresStayFencedWhileRedisTheNetworkAndTheNodesFail() throws Exception {
        RedisProcess.assumeBinary();
        CheckerServer server = keep(new CheckerServer(checker));

        oneRedisBehindProxies(server.port(), (int) Math.max(1, SECONDS * 2 / 3 / CYCLE_SECONDS));
        roundLocks.put("round 1", checker.counts().lockAcquisitions);

        sentinelFailoverLosingALock(server.port(),
                Duration.ofSeconds(Math.max(3, SECONDS / 6)));
        roundLocks.put("round 2", checker.counts().lockAcquisitions - roundLocks.get("round 1"));

        FencingChecker.Counts c = checker.counts();
        System.out.println(report(c));

        assertThat(workerCounts.get("unexpected")).as("exceptions other than not-acquired and lost, in the nodes "
                + "(their logs: " + LOGS.toAbsolutePath() + ")").isZero();
        assertThat(c.faults.keySet()).as("faults injected").hasSize(8);
        assertThat(roundLocks.values()).as("locks acquired in each round").allMatch(n -> n > 0);
        assertThat(c.permitAcquisitions).as("permits acquired").isPositive();
        assertThat(c.unfenced).as("unfenced overlaps: holders inside together whose fenced operations were both "
                + "accepted, interleaved, or who had one token").isEmpty();
        assertThat(c.tokenOrderViolations).as("fencing tokens not above a token whose holder had already left")
                .isEmpty();
        assertThat(c.fencedLostUpdates).as("lost updates of the fenced counter").isZero();
        assertThat(c.aboveNUnexcused).as("moments with more than " + LockFaultWorker.PERMITS + " semaphore holders "
                + "believing they held a permit, Redis keeping its data").isEmpty();
        assertThat(strandedHolders.keySet()).as("holders stranded by a fault (cut off, frozen, lock lost in the "
                + "fail-over) whose fenced operations were not refused after another node held the lock")
                .allMatch(stranded -> stranded.refused > 0);
        // Needs renewals that keep an extended lease (issue 16, item 1): a watchdog renewing with the lease given at
        // acquisition lets Redis drop the lock one lease after the last renewal of a cut-off node, while its handle
        // believes the extension and says nothing.
        assertThat(c.silent).as("holders whose lock another node held while they were inside, and who were never "
                + "told (isHeld() still true after their section and no LockLostException), Redis keeping its data")
                .isEmpty();
    }

    // ------------------------------------------------------------------------------------------- round 1

    private void oneRedisBehindProxies(int checkerPort, int cycles) throws Exception {
        RedisProcess redis = keep(RedisProcess.start("--appendonly", "yes", "--appendfsync", "always"));
        FaultyProxy[] links = {keep(FaultyProxy.start(redis.host(), redis.port())),
                keep(FaultyProxy.start(redis.host(), redis.port()))};
        WorkerJvm[] nodes = {
                keep(WorkerJvm.start("A", checkerPort, LEASE_MS, nodeConfig("sluice.redis.uri", links[0].uri()), LOGS)),
                keep(WorkerJvm.start("B", checkerPort, LEASE_MS, nodeConfig("sluice.redis.uri", links[1].uri()), LOGS))};
        awaitLocks(20);
        Duration lease = Duration.ofMillis(LEASE_MS);
        for (int cycle = 0; cycle < cycles; cycle++) {
            int victim = cycle % 2;
            FaultyProxy link = links[victim];
            inject("latency 150 ms on every link", Duration.ofSeconds(2),
                    () -> List.of(links).forEach(l -> l.latency(Duration.ofMillis(150))),
                    () -> List.of(links).forEach(FaultyProxy::heal));
            inject("replies dropped (commands run, answers lost)", Duration.ofMillis(TIMEOUT_MS * 4),
                    () -> link.dropReplies(true), () -> {
                        link.dropReplies(false);
                        link.cutAll(); // the connections that lost replies are out of step anyway
                    });
            strand("node cut off from Redis (connections cut, new ones refused)", nodes[victim].name(), false,
                    () -> {
                        link.refuse(true);
                        link.cutAll();
                    }, link::heal);
            inject("Redis frozen (SIGSTOP)", lease.multipliedBy(3).dividedBy(2), redis::pause, redis::resume);
            inject("Redis killed (kill -9) and restarted with its AOF", Duration.ZERO, redis::kill, redis::restart);
            WorkerJvm node = nodes[victim];
            strand("node JVM frozen (SIGSTOP) until another node held its lock", node.name(), true, node::pause,
                    node::resume);
        }
        stopAll(nodes);
        for (FaultyProxy link : links) {
            swallowedReplyBytes += link.swallowedBytes();
            refusedConnections += link.refused();
        }
    }

    // ------------------------------------------------------------------------------------------- round 2

    private void sentinelFailoverLosingALock(int checkerPort, Duration afterwards) throws Exception {
        RedisProcess master = keep(RedisProcess.start());
        FaultyProxy replicationLink = keep(FaultyProxy.start(master.host(), master.port()));
        RedisProcess replica = keep(RedisProcess.start("--replicaof", replicationLink.host(),
                Integer.toString(replicationLink.port())));
        await().atMost(Duration.ofSeconds(15)).until(() -> onNode(replica, j -> j.info("replication"))
                .contains("master_link_status:up"));
        List<RedisProcess> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sentinels.add(keep(RedisProcess.startSentinel(List.of(
                    "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 3000",
                    "sentinel parallel-syncs " + MASTER_NAME + " 1"))));
        }
        // A fail-over needs the sentinels to know the replica and each other (hello messages every 2 s).
        await().atMost(Duration.ofSeconds(30)).until(() -> sentinels.stream().allMatch(s -> {
            Map<String, String> state = onNode(s, j -> new HashMap<>(j.sentinelMaster(MASTER_NAME)));
            return "1".equals(state.get("num-slaves")) && "2".equals(state.get("num-other-sentinels"));
        }));
        Map<String, String> config = nodeConfig("sluice.redis.sentinels",
                String.join(",", sentinels.stream().map(RedisProcess::address).toList()));
        config.put("sluice.redis.master-name", MASTER_NAME);
        WorkerJvm[] nodes = {keep(WorkerJvm.start("C", checkerPort, LEASE_MS, config, LOGS)),
                keep(WorkerJvm.start("D", checkerPort, LEASE_MS, config, LOGS))};
        long before = checker.counts().lockAcquisitions;
        awaitLocks(before + 20);

        replicationLink.stall(true);
        checker.fault("replication to the replica stalled");
        FencingChecker.Trap trap = checker.armTrap(LockFaultWorker.HOLD_KEY, nodes[0].name());
        FencingChecker.Session stranded = trap.awaitCaught(Duration.ofSeconds(30));
        checker.dataLoss();
        master.kill();
        checker.dataLoss(); // and whoever began in between
        replicationLink.cutAll();
        checker.fault("Sentinel fail-over to a replica missing the latest writes");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> sentinels.stream()
                .anyMatch(s -> onNode(s, j -> j.sentinelGetMasterAddrByName(MASTER_NAME).get(1))
                        .equals(Integer.toString(replica.port()))));
        await().atMost(Duration.ofSeconds(30)).until(() ->
                checker.newerHolderWroteAndLeft(LockFaultWorker.HOLD_KEY, stranded.token));
        trap.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> checker.reported(stranded));
        strandedHolders.put(stranded, "Sentinel fail-over");
        TimeUnit.NANOSECONDS.sleep(afterwards.toNanos()); // the scenario: load goes on on the new master
        stopAll(nodes);
    }

    // ------------------------------------------------------------------------------------------- helpers

    private static Map<String, String> nodeConfig(String where, String value) {
        Map<String, String> config = new HashMap<>();
        config.put(where, value);
        config.put("sluice.redis.timeout", TIMEOUT_MS + "ms");
        return config;
    }

    /** Applies a fault, holds it (the hold is the scenario), lifts it, then lets the nodes work a calm second. */
    private void inject(String fault, Duration hold, Runnable apply, Runnable lift) throws InterruptedException {
        checker.fault(fault);
        apply.run();
        TimeUnit.NANOSECONDS.sleep(hold.toNanos());
        lift.run();
        TimeUnit.NANOSECONDS.sleep(CALM.toNanos());
    }

    /**
     * A fault that must cost a holder its lock: a holder of the trap key on {@code node} is caught in its section
     * (after extending its lease to two leases), left long enough for a watchdog renewal, then the fault is applied
     * and held until another node has taken the lock, written and left. Then the holder goes on (before the fault is
     * lifted for a cut-off node, after it for a frozen JVM): its fenced operations must be refused.
     */
    private void strand(String fault, String node, boolean liftFirst, Runnable apply, Runnable lift)
            throws InterruptedException {
        FencingChecker.Trap trap = checker.armTrap(LockFaultWorker.HOLD_KEY, node);
        FencingChecker.Session caught = trap.awaitCaught(Duration.ofSeconds(30));
        TimeUnit.MILLISECONDS.sleep(LEASE_MS * 3 / 5); // the scenario: one renewal after the holder's extend
        checker.fault(fault);
        apply.run();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                checker.newerHolderWroteAndLeft(LockFaultWorker.HOLD_KEY, caught.token));
        if (liftFirst) {
            lift.run();
        }
        trap.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> checker.reported(caught));
        if (!liftFirst) {
            lift.run();
        }
        strandedHolders.put(caught, fault);
        TimeUnit.NANOSECONDS.sleep(CALM.toNanos());
    }

    private void awaitLocks(long atLeast) {
        await().atMost(Duration.ofSeconds(60)).until(() -> checker.counts().lockAcquisitions >= atLeast);
    }

    private void stopAll(WorkerJvm... nodes) {
        checker.releaseTrap();
        for (WorkerJvm node : nodes) {
            node.stop().forEach((k, v) -> workerCounts.merge(k, v, Long::sum));
        }
    }

    private <T extends AutoCloseable> T keep(T resource) {
        resources.add(resource);
        return resource;
    }

    private static <T> T onNode(RedisProcess node, Function<Jedis, T> action) {
        try (Jedis jedis = new Jedis(new HostAndPort(node.host(), node.port()),
                DefaultJedisClientConfig.builder().timeoutMillis(5000).build())) {
            return action.apply(jedis);
        }
    }

    private String report(FencingChecker.Counts c) {
        StringBuilder out = new StringBuilder();
        out.append("=== Lock fault injection (").append(SECONDS).append(" s requested; lease ").append(LEASE_MS)
                .append(" ms, timeout ").append(TIMEOUT_MS).append(" ms; 4 nodes in their own JVMs) ===\n");
        out.append(String.format("acquisitions:  locks %d (round 1: %d, round 2: %d), permits %d%n",
                c.lockAcquisitions, roundLocks.get("round 1"), roundLocks.get("round 2"), c.permitAcquisitions));
        out.append("faults injected:\n");
        c.faults.forEach((k, v) -> out.append(String.format("  %4d  %s%n", v, k)));
        out.append(String.format("  (the proxies swallowed %d bytes of replies and refused %d connections)%n",
                swallowedReplyBytes, refusedConnections));
        out.append(String.format("nodes:         lock timeouts %d, refused fail-closed %d, LockLostException on "
                        + "close %d, extend failed %d / refused %d; permit timeouts %d, refused fail-closed %d, lost "
                        + "on close %d; unexpected %d%n",
                workerCounts.get("lockTimeouts"), workerCounts.get("lockFailedClosed"),
                workerCounts.get("lockLostOnClose"), workerCounts.get("extendFailed"),
                workerCounts.get("extendRefused"), workerCounts.get("permitTimeouts"),
                workerCounts.get("permitFailedClosed"), workerCounts.get("permitLostOnClose"),
                workerCounts.get("unexpected")));
        out.append(String.format("overlapping pairs seen by the checker: %d (older holder refused by fencing in %d, told "
                        + "its lease was lost in %d, Redis lost data under it in %d)%n",
                c.overlaps, c.overlapsStaleRefused, c.overlapsStaleTold, c.overlapsAfterDataLoss));
        c.overlapsByFault.forEach((fault, n) -> out.append(String.format("  %4d  after: %s%n", n, fault)));
        out.append(String.format("fenced operations refused (stale token): %d; fenced writes accepted %d%n",
                c.refusedOps, c.fencedAccepted));
        out.append("holders stranded by a fault while another node took their lock:\n");
        strandedHolders.forEach((s, fault) -> out.append("  ").append(fault).append(": ").append(s).append('\n'));
        out.append(String.format("semaphore: most holders at once %d (N = %d); moments above N %d, of them with "
                        + "more than N untold holders while Redis kept its data %d%n",
                c.maxPermitHolders, LockFaultWorker.PERMITS, c.aboveN, c.aboveNUnexcused.size()));
        c.aboveNByFault.forEach((fault, n) -> out.append(String.format("  %4d  after: %s%n", n, fault)));
        out.append(String.format("lost updates: plain counter (lock only) %d, fenced counter %d%n",
                c.plainLostUpdates, c.fencedLostUpdates));
        out.append(String.format("VIOLATIONS: unfenced overlaps %d, token order %d, semaphore above N %d, silent "
                        + "lock losses (holders never told) %d%n",
                c.unfenced.size(), c.tokenOrderViolations.size(), c.aboveNUnexcused.size(), c.silent.size()));
        c.unfenced.stream().limit(5).forEach(v -> out.append("  unfenced: ").append(v).append('\n'));
        c.tokenOrderViolations.stream().limit(5).forEach(v -> out.append("  token order: ").append(v).append('\n'));
        c.aboveNUnexcused.stream().limit(5).forEach(v -> out.append("  above N: ").append(v).append('\n'));
        c.silent.stream().limit(5).forEach(v -> out.append("  silent: ").append(v).append('\n'));
        return out.toString();
    }
}
