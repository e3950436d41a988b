package dev.sluice.bench;

import dev.sluice.RequestView;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.ClientAddress;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.http.RateLimitHeaders;
import dev.sluice.internal.http.Verdict;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Bytes the Java heap gives one admitted request on the servlet filter's decision path, a number that does not
 * depend on how loaded the machine is (unlike requests/s): a rate policy that is never reached
 * ({@code sluice.limit.e2e.rate=1000000/1s}, key {@code ip}, IETF headers, as bench/e2e.sh's {@code with}
 * variant), one client address, and per request what {@code RateLimitFilter} does after its path match: a
 * {@link RequestView} that resolves the client address as {@code ServletRequestView} does
 * ({@link ClientAddress#resolve}), {@link RateLimitGate#decide}, the charged-policy record and the headers. Below
 * the gate it is the real engine, store, Jedis and a private {@code redis-server}, one {@code EVALSHA} per request.
 *
 * <p>Run: {@code java -cp <bench class path> dev.sluice.bench.FilterAllocation [requests]}; it prints the
 * thread's allocated bytes per request (com.sun.management.ThreadMXBean), three times over, after a warm-up, and
 * the thread's CPU time per request, user and system (system time is the socket calls; on a loaded host the CPU
 * time varies more than the bytes, which depend on nothing but the code).
 * With {@code --syscalls} after the count, also the thread's system calls and context switches per request
 * ({@code perf stat}, which must be on the PATH and allowed to attach).
 * Add {@code -XX:StartFlightRecording=filename=x.jfr,settings=profile} and read
 * {@code jfr print --events jdk.ObjectAllocationSample x.jfr} for the allocation sites.
 */
public final class FilterAllocation {

    private static final String POLICY = "e2e";

    private FilterAllocation() {
    }

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        boolean syscalls = args.length > 1 && args[1].equals("--syscalls");
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        try (PrivateRedis redis = PrivateRedis.start()) {
            SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                    "sluice.redis.uri", redis.uri(),
                    "sluice.limit." + POLICY + ".rate", "1000000/1s",
                    "sluice.limit." + POLICY + ".paths", "/api/hello")));
            try (SluiceRuntime runtime = SluiceRuntime.start(config)) {
                RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
                List<RateLimitGate.Policy> policies = List.of(RateLimitGate.Policy.of(config.policy(POLICY)
                        .orElseThrow(), false));
                ClientAddress addresses = ClientAddress.of(config);
                long sink = run(gate, policies, addresses, requests); // warm-up: JIT, pool, script loaded
                for (int round = 1; round <= 3; round++) {
                    PerfStat calls = syscalls ? PerfStat.ofThisThread("raw_syscalls:sys_enter,context-switches") : null;
                    long before = threads.getThreadAllocatedBytes(thread);
                    long cpuBefore = threads.getCurrentThreadCpuTime();
                    long userBefore = threads.getCurrentThreadUserTime();
                    sink += run(gate, policies, addresses, requests);
                    long user = threads.getCurrentThreadUserTime() - userBefore;
                    long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
                    long bytes = threads.getThreadAllocatedBytes(thread) - before;
                    System.out.printf("round %d: %d requests, %.1f bytes allocated per request, thread CPU %.2f µs"
                            + " per request (user %.2f, system %.2f)%s%n", round, requests, (double) bytes / requests,
                            cpu / 1e3 / requests, user / 1e3 / requests, (cpu - user) / 1e3 / requests,
                            calls == null ? "" : ", " + calls.stop(requests) + " per request");
                }
                System.out.println("(checksum " + sink + ")");
            }
        }
    }

    private static long run(RateLimitGate gate, List<RateLimitGate.Policy> policies, ClientAddress addresses,
            int requests) {
        long sink = 0;
        for (int i = 0; i < requests; i++) {
            Verdict verdict = gate.decide(new Request(addresses), policies, null);
            if (!verdict.admitted()) {
                throw new IllegalStateException("refused: " + verdict);
            }
            sink += verdict.charged().map(java.util.Set::size).orElse(0);
            for (RateLimitHeaders.Header header : verdict.headers()) {
                sink += header.value().length();
            }
        }
        return sink;
    }

    /** One request from 127.0.0.1 without forwarding headers, as {@code ServletRequestView} presents it. */
    private static final class Request implements RequestView {
        private final ClientAddress addresses;
        private String clientAddress;

        Request(ClientAddress addresses) {
            this.addresses = addresses;
        }

        @Override
        public String method() {
            return RateLimitGate.requestMethod("GET");
        }

        @Override
        public String path() {
            return "/api/hello";
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> queryParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> pathParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> principal() {
            return Optional.empty();
        }

        @Override
        public String clientAddress() {
            if (clientAddress == null) {
                clientAddress = addresses.resolve("127.0.0.1", new ArrayList<>(2));
            }
            return clientAddress;
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException("a benchmark request wraps nothing");
        }
    }
}
