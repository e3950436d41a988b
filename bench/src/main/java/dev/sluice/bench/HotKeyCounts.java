package dev.sluice.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one decision on the hot key costs the client at many threads, in numbers that depend on the code more than
 * on how loaded the host is: threads deciding for one key as fast as they can (Sluice's engine as
 * {@code RateLimitBenchmark} drives it, or the plain Jedis {@code EVALSHA} reference), and per decision the
 * deciding threads' CPU time (the JIT compiler and the garbage collector left out, unlike the benchmark's client
 * CPU, which is the whole process's), their context switches, voluntary (waiting) and involuntary (preempted),
 * read from {@code /proc/self/task}, and the bytes they allocated; with {@code --syscalls}, the process's system
 * calls and {@code futex} calls per decision ({@code perf stat}, which must be on the PATH and allowed to attach).
 *
 * <p>Run: {@code java -cp <bench class path> dev.sluice.bench.HotKeyCounts [sluice|jedis] [threads] [seconds]
 * [--syscalls]}, after a 10-second warm-up; it prints each second's decisions and the totals.
 */
public final class HotKeyCounts {

    private HotKeyCounts() {
    }

    public static void main(String[] args) throws Exception {
        String library = args.length > 0 ? args[0] : "sluice";
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        boolean syscalls = args.length > 3 && args[3].equals("--syscalls");
        String[] hot = {"user-0"};
        try (PrivateRedis redis = PrivateRedis.start();
             RateLimitClient client = library.equals("jedis")
                     ? new RawEvalshaClient(redis.uri(), hot, 1_000_000, Duration.ofSeconds(1))
                     : new SluiceRateLimitClient(redis.uri(), hot, 1_000_000, Duration.ofSeconds(1))) {
            LongAdder decisions = new LongAdder();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> deciders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread decider = new Thread(() -> {
                    while (running.get()) {
                        if (!client.tryAcquire(0)) {
                            throw new IllegalStateException("a decision under a limit never reached was refused");
                        }
                        decisions.increment();
                    }
                }, "decider-" + t);
                decider.start();
                deciders.add(decider);
            }
            Thread.sleep(10_000); // warm-up: the JIT, the pool
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long[] ids = deciders.stream().mapToLong(Thread::getId).toArray();
            long atPerfStart = decisions.sum(); // perf counts from about here: it attaches while start() waits
            PerfStat perf = syscalls ? PerfStat.ofThisProcess("raw_syscalls:sys_enter,syscalls:sys_enter_futex") : null;
            long decisions0 = decisions.sum();
            long cpu0 = cpu(mx, ids);
            long bytes0 = Arrays.stream(mx.getThreadAllocatedBytes(ids)).sum();
            long[] switches0 = switches(deciders);
            List<String> perSecond = new ArrayList<>();
            for (int s = 0; s < seconds; s++) {
                long before = decisions.sum();
                Thread.sleep(1000);
                perSecond.add(String.format(Locale.ROOT, "%,d", decisions.sum() - before));
            }
            long n = decisions.sum() - decisions0;
            long cpu = cpu(mx, ids) - cpu0;
            long bytes = Arrays.stream(mx.getThreadAllocatedBytes(ids)).sum() - bytes0;
            long[] switches = switches(deciders);
            String perfCounts = perf == null ? "" : ", " + perf.stop(decisions.sum() - atPerfStart);
            running.set(false);
            for (Thread decider : deciders) {
                decider.join();
            }
            System.out.printf(Locale.ROOT, "%s, %d threads, one hot key: %,d decisions/s (each second: %s)%n", library,
                    threads, n / seconds, String.join(", ", perSecond));
            System.out.printf(Locale.ROOT, "per decision: deciding threads' CPU %.2f µs, context switches %.2f"
                    + " voluntary + %.2f involuntary, %.0f bytes allocated%s%n", cpu / 1e3 / n,
                    (double) (switches[0] - switches0[0]) / n, (double) (switches[1] - switches0[1]) / n,
                    (double) bytes / n, perfCounts);
        }
    }

    private static long cpu(com.sun.management.ThreadMXBean mx, long[] ids) {
        long total = 0;
        for (long id : ids) {
            total += mx.getThreadCpuTime(id);
        }
        return total;
    }

    /** Voluntary and involuntary context switches of the deciding threads so far. */
    private static long[] switches(List<Thread> deciders) throws IOException {
        List<String> names = deciders.stream().map(Thread::getName).toList();
        long[] switches = new long[2];
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                if (!names.contains(Files.readString(task.resolve("comm")).trim())) {
                    continue;
                }
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        switches[0] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                        switches[1] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            }
        }
        return switches;
    }
}
