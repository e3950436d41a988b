package dev.sluice.bench;

import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The ceiling for one round trip per decision: {@code redis-benchmark} (C, event loop, one connection per
 * client) calling Sluice's own {@code gcra.lua} by {@code EVALSHA} with the arguments Sluice's engine sends
 * for the benchmark policy, with as many connections as the JVM benchmarks have threads; as
 * {@link Libraries#CEILING_PIPELINED} with {@value Libraries#PIPELINE} requests pipelined per connection.
 */
final class RedisBenchmarkRunner {

    private final PrivateRedis redis;
    private final Plan plan;
    private final Pinning pinning;

    RedisBenchmarkRunner(PrivateRedis redis, Plan plan, Pinning pinning) {
        this.redis = redis;
        this.plan = plan;
        this.pinning = pinning;
    }

    static boolean runs(String library) {
        return library.equals(Libraries.CEILING) || library.equals(Libraries.CEILING_PIPELINED);
    }

    Measurement run(Scenario scenario, String library, int round) throws IOException, InterruptedException {
        int pipeline = library.equals(Libraries.CEILING_PIPELINED) ? Libraries.PIPELINE : 1;
        List<String> prefix = pinning.applies(scenario) ? pinning.clientPrefix() : List.of();
        String sha = loadScript();
        boolean hot = "hot".equals(scenario.variant().get("keys"));
        // The key Sluice's engine builds for policy "bench" and key "user-<n>"; __rand_int__ is redis-benchmark's
        // per-request random number below -r.
        String key = hot ? "sluice:rl:{" + SluiceRateLimitClient.POLICY + ":user-0}"
                : "sluice:rl:{" + SluiceRateLimitClient.POLICY + ":user-__rand_int__}";
        List<String> args = dev.sluice.bench.servlet.GcraArgs.of(BenchEnv.RATE_TOKENS, BenchEnv.RATE_PERIOD);
        admits(sha, args);
        List<String> command = new ArrayList<>(List.of("EVALSHA", sha, "1", key));
        command.addAll(args);

        // A low first guess: the first warm-up is then short where a row is slow (one connection, a loaded
        // machine) instead of running 100,000 requests; each later run is sized from the one before.
        double rps = 10_000;
        for (int i = 0; i < plan.warmups(); i++) {
            rps = once(prefix, scenario.threads(), pipeline, requests(rps, plan.warmupTime().toSeconds()), command)[0];
        }
        double[] throughput = new double[plan.iterations()];
        double p50 = 0;
        double p99 = 0;
        long operations = 0;
        double clientCpu = 0;
        long redisCpu;
        try (Jedis jedis = redis.connect()) {
            long before = CpuMeter.redisCpuMicros(jedis);
            for (int i = 0; i < plan.iterations(); i++) {
                long n = requests(rps, plan.iterationTime().toSeconds());
                double[] r = once(prefix, scenario.threads(), pipeline, n, command);
                operations += n;
                clientCpu += r[3];
                throughput[i] = r[0];
                p50 += r[1];
                p99 += r[2];
            }
            redisCpu = CpuMeter.redisCpuMicros(jedis) - before;
        }
        return new Measurement(library, round, throughput,
                Math.round(p50 / plan.iterations() * 1_000_000), Math.round(p99 / plan.iterations() * 1_000_000),
                clientCpu * 1_000_000 / operations, redisCpu / (double) operations);
    }

    private static long requests(double rps, long seconds) {
        return Math.max(10_000, Math.round(rps * seconds));
    }

    /**
     * One redis-benchmark run: requests/s, p50 ms, p99 ms, and its CPU seconds (user + system). It runs under
     * {@code bash}, whose {@code times} reports the CPU its children used.
     */
    private double[] once(List<String> prefix, int clients, int pipeline, long requests, List<String> command)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("bash", "-c", "\"$@\"; status=$?; times; exit $status", "bash"));
        args.addAll(prefix);
        args.addAll(List.of("redis-benchmark", "-h", "127.0.0.1", "-p",
                String.valueOf(redis.port()), "-c", String.valueOf(clients), "-n", String.valueOf(requests),
                "-P", String.valueOf(pipeline), "-r", String.valueOf(BenchEnv.DISTINCT_KEYS), "--csv"));
        args.addAll(command);
        Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("redis-benchmark failed: " + out);
        }
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        String row = out.lines().filter(l -> l.startsWith("\"EVALSHA")).reduce((a, b) -> b)
                .orElseThrow(() -> new IOException("no result from redis-benchmark: " + out));
        String[] cells = row.replace("\"", "").split(",");
        // times: the shell's own user/system, then its children's, as "0m1.234s 0m0.567s".
        String children = out.lines().filter(l -> l.matches("\\d+m[\\d.]+s \\d+m[\\d.]+s")).reduce((a, b) -> b).orElse("");
        double cpu = 0;
        for (String t : children.split(" ")) {
            if (!t.isEmpty()) {
                cpu += Integer.parseInt(t.substring(0, t.indexOf('m'))) * 60 + Double.parseDouble(t.substring(t.indexOf('m') + 1, t.length() - 1));
            }
        }
        return new double[] {Double.parseDouble(cells[cells.length - 7]), Double.parseDouble(cells[cells.length - 4]),
                Double.parseDouble(cells[cells.length - 2]), cpu};
    }

    /**
     * Checks the call once: redis-benchmark counts a reply of any kind, so arguments the script refuses would
     * measure how fast Redis answers with an error.
     */
    private void admits(String sha, List<String> args) throws IOException {
        try (Jedis jedis = redis.connect()) {
            Object reply = jedis.evalsha(sha, List.of("sluice:rl:{" + SluiceRateLimitClient.POLICY + ":check}"), args);
            if (!(reply instanceof List<?> values) || values.isEmpty() || !Long.valueOf(1).equals(values.get(0))) {
                throw new IOException("gcra.lua did not admit the reference's call " + args + ": " + reply);
            }
        } catch (redis.clients.jedis.exceptions.JedisDataException refused) {
            throw new IOException("gcra.lua refused the reference's arguments " + args + ": " + refused.getMessage(),
                    refused);
        }
    }

    private String loadScript() throws IOException {
        try (Jedis jedis = redis.connect()) {
            return jedis.scriptLoad(script());
        }
    }

    /** {@code gcra.lua} as Sluice sends it (with the fragments it includes). */
    static String script() {
        return dev.sluice.internal.redis.LuaScript.bundled("gcra").source();
    }
}
