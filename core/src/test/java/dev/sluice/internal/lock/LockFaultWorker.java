package dev.sluice.internal.lock;

import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.SluiceException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.internal.config.SluiceConfigLoader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client of {@link LockFaultInjectionIT}, run in a JVM of its own: a {@link SluiceRuntime} with its own pool,
 * whose threads contend for locks and a semaphore and report every step to the {@link CheckerServer}.
 *
 * <p>Arguments: {@code <client name> <checker port> <lease ms> <sluice.key=value>...}. It prints {@code READY} once
 * its runtime is up, runs until it reads {@code STOP} on standard input, then prints one {@code COUNTS k=v ...} line
 * and exits. Logs go to standard error.
 *
 * <p>Per lock section: the plain and the fenced counter are read, the thread works 1 to 3 ms, then writes both back
 * plus one (the plain one guarded only by the lock, the fenced one with the token). One section in ten on the first
 * three keys is a long job: it extends its lease to two leases and works one and a half leases more (the watchdog
 * must keep it). On the fourth key ({@value #HOLD_KEY}) every section extends its lease to two leases and, before
 * writing, asks the checker whether to stay (its trap, see {@link FencingChecker#armTrap}): the read-pause-write of
 * the fencing argument. Semaphore sections stay 2 to 10 ms inside.
 */
public final class LockFaultWorker {

    /** Lock keys contended by two threads of every worker. */
    static final List<String> LOCK_KEYS = List.of("k1", "k2", "k3");
    /** The lock key whose holder the test can freeze with the checker's trap. */
    static final String HOLD_KEY = "hold";
    static final String SEMAPHORE = "pool";
    static final int PERMITS = 2;
    static final int SEMAPHORE_THREADS = 3;

    private final String name;
    private final int checkerPort;
    private final Duration lease;
    private final SluiceRuntime runtime;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, AtomicLong> counts = new HashMap<>();

    private LockFaultWorker(String name, int checkerPort, Duration lease, SluiceRuntime runtime) {
        this.name = name;
        this.checkerPort = checkerPort;
        this.lease = lease;
        this.runtime = runtime;
        for (String c : List.of("locks", "lockTimeouts", "lockFailedClosed", "lockLostOnClose", "extendFailed",
                "extendRefused", "permits", "permitTimeouts", "permitFailedClosed", "permitLostOnClose",
                "unexpected")) {
            counts.put(c, new AtomicLong());
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> config = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        SluiceRuntime runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(config)));
        LockFaultWorker worker = new LockFaultWorker(args[0], Integer.parseInt(args[1]),
                Duration.ofMillis(Long.parseLong(args[2])), runtime);
        List<Thread> threads = worker.startThreads();
        System.out.println("READY");
        System.out.flush();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.equals("STOP")) {
            // only STOP (or the end of input) means anything
        }
        worker.stop.set(true);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        StringBuilder out = new StringBuilder("COUNTS");
        worker.counts.forEach((k, v) -> out.append(' ').append(k).append('=').append(v.get()));
        System.out.println(out);
        System.out.flush();
        runtime.close();
        System.exit(0);
    }

    private List<Thread> startThreads() {
        List<Thread> threads = new ArrayList<>();
        int n = 0;
        for (String key : LOCK_KEYS) {
            for (int i = 0; i < 2; i++) {
                threads.add(thread(n++, t -> lockLoop(t, key, true)));
            }
        }
        threads.add(thread(n++, t -> lockLoop(t, HOLD_KEY, false)));
        for (int i = 0; i < SEMAPHORE_THREADS; i++) {
            threads.add(thread(n++, this::semaphoreLoop));
        }
        return threads;
    }

    private interface Loop {
        void run(int thread) throws IOException, InterruptedException;
    }

    private Thread thread(int index, Loop loop) {
        Thread thread = new Thread(() -> {
            try {
                loop.run(index);
            } catch (IOException | InterruptedException e) {
                // the checker went away: the test is over
            } catch (RuntimeException e) {
                count("unexpected");
                e.printStackTrace();
            }
        }, name + "-" + index);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void lockLoop(int thread, String key, boolean longJobs) throws IOException, InterruptedException {
        DistributedLock lock = runtime.locks().lock(key);
        Duration maxWait = Duration.ofSeconds(1);
        try (Checker checker = new Checker(checkerPort)) {
            for (long n = 0; !stop.get(); n++) {
                String id = name + "-" + thread + "-" + n;
                checker.call("BEGIN " + id + " LOCK " + key);
                LockHandle handle;
                try {
                    handle = lock.acquire(lease, maxWait);
                } catch (LockNotAcquiredException e) {
                    checker.call("ABORT " + id);
                    count(e.getCause() == null ? "lockTimeouts" : "lockFailedClosed");
                    pace();
                    continue;
                }
                count("locks");
                boolean held;
                boolean lost = false;
                try {
                    checker.call("ENTER " + id + " " + handle.fencingToken());
                    boolean longJob = longJobs && ThreadLocalRandom.current().nextInt(10) == 0;
                    if (longJob) {
                        extend(handle, lease.multipliedBy(2));
                    }
                    long plain = Long.parseLong(checker.call("PREAD " + id));
                    String fenced = checker.call("FREAD " + id);
                    TimeUnit.MILLISECONDS.sleep(1 + ThreadLocalRandom.current().nextInt(3)); // the work
                    if (longJob) {
                        TimeUnit.MILLISECONDS.sleep(lease.toMillis() * 3 / 2); // the long work
                    }
                    if (!longJobs) {
                        // The key the test freezes holders of: a job that knows it will be long extends its lease.
                        extend(handle, lease.multipliedBy(2));
                        checker.call("HOLD " + id);
                    }
                    checker.call("PWRITE " + id + " " + (plain + 1));
                    if (!fenced.equals("REFUSED")) {
                        checker.call("FWRITE " + id + " " + (Long.parseLong(fenced) + 1));
                    }
                    checker.call("EXIT " + id);
                    held = handle.isHeld();
                } finally {
                    try {
                        handle.close();
                    } catch (LockLostException e) {
                        lost = true;
                        count("lockLostOnClose");
                    }
                }
                checker.call("REPORT " + id + " " + (held ? 1 : 0) + " " + (lost ? 1 : 0));
            }
        }
    }

    private void extend(LockHandle handle, Duration to) {
        try {
            if (!handle.extend(to)) {
                count("extendRefused");
            }
        } catch (SluiceException e) {
            count("extendFailed");
        }
    }

    private void semaphoreLoop(int thread) throws IOException, InterruptedException {
        DistributedSemaphore semaphore = runtime.locks().semaphore(SEMAPHORE, PERMITS);
        try (Checker checker = new Checker(checkerPort)) {
            for (long n = 0; !stop.get(); n++) {
                String id = name + "-" + thread + "-" + n;
                checker.call("BEGIN " + id + " PERMIT " + SEMAPHORE);
                Permit permit;
                try {
                    permit = semaphore.acquire(lease, Duration.ofSeconds(1));
                } catch (PermitNotAcquiredException e) {
                    checker.call("ABORT " + id);
                    count(e.getCause() == null ? "permitTimeouts" : "permitFailedClosed");
                    pace();
                    continue;
                }
                count("permits");
                boolean held;
                boolean lost = false;
                try {
                    checker.call("ENTER " + id + " 0");
                    TimeUnit.MILLISECONDS.sleep(2 + ThreadLocalRandom.current().nextInt(9)); // the work
                    checker.call("EXIT " + id);
                    held = permit.isHeld();
                } finally {
                    try {
                        permit.close();
                    } catch (LockLostException e) {
                        lost = true;
                        count("permitLostOnClose");
                    }
                }
                checker.call("REPORT " + id + " " + (held ? 1 : 0) + " " + (lost ? 1 : 0));
            }
        }
    }

    /** Callers refused at once would otherwise spin and starve the Redis processes of the two CPUs. */
    private static void pace() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(5);
    }

    private void count(String what) {
        counts.get(what).incrementAndGet();
    }

    /** One connection to the checker; one line out, one line back. */
    private static final class Checker implements AutoCloseable {
        private final Socket socket;
        private final BufferedReader in;
        private final Writer out;

        Checker(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
        }

        String call(String request) throws IOException {
            out.write(request);
            out.write('\n');
            out.flush();
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("checker closed");
            }
            if (reply.startsWith("ERR")) {
                throw new UncheckedIOException(new IOException(request + " -> " + reply));
            }
            return reply;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
