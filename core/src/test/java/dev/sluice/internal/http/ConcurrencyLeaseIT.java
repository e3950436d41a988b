package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node killed (SIGKILL) while its requests hold permits of a concurrency limit: nothing returns them, its
 * renewals stop, and the permits come back within one lease on the Redis clock.
 */
class ConcurrencyLeaseIT {

    private static final long LEASE_MILLIS = 1_000;

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private Process holder;
    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (holder != null) {
            holder.destroyForcibly();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    private Map<String, String> config() {
        return Map.of("sluice.redis.uri", redis.uri(), "sluice.limit.reports.concurrency", "3",
                "sluice.limit.reports.paths", "/reports",
                "sluice.limit.reports.concurrency-lease", LEASE_MILLIS + "ms");
    }

    @Test
    void permitsOfAKilledNodeComeBackWithinTheLease() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), PermitHolderJvm.class.getName()));
        config().forEach((k, v) -> command.add(k + "=" + v));
        command.add("203.0.113.9");
        command.add("3");
        holder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("HELD");

        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(config())));
        RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        List<RateLimitGate.Policy> policies = List.of(
                RateLimitGate.Policy.of(runtime.config().policy("reports").orElseThrow(), false));
        String key = runtime.rateLimits().permitKey("reports", "203.0.113.9");
        long taken = redisMillis();

        // While the holder lives, its renewals keep the permits beyond their first lease.
        await().atMost(Duration.ofSeconds(30)).pollInterval(ConcurrencyLimitIT.POLL)
                .until(() -> redisMillis() >= taken + 2 * LEASE_MILLIS);
        assertThat(redis.admin().zcard(key)).isEqualTo(3);
        assertThat(gate.decide(TestRequest.get("/reports").from("203.0.113.9"), policies, null).status())
                .isEqualTo(429);

        holder.destroyForcibly(); // SIGKILL: no release, no shutdown hook
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long killed = redisMillis();
        double latestExpiry = redis.admin().zrangeWithScores(key, -1, -1).get(0).getScore();
        assertThat(latestExpiry - killed).as("no permit outlives its lease").isLessThanOrEqualTo(LEASE_MILLIS);

        // Each permit comes back when its own lease runs out: poll until this node holds all three.
        AtomicInteger returned = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).pollInterval(ConcurrencyLimitIT.POLL).until(() -> {
            if (gate.decide(TestRequest.get("/reports").from("203.0.113.9"), policies, null).admitted()) {
                returned.incrementAndGet();
            }
            return returned.get() == 3 || redisMillis() >= killed + 10 * LEASE_MILLIS;
        });
        int admitted = returned.get();
        long back = redisMillis();
        System.out.printf("lease %d ms: latest permit ran out %.0f ms after the kill; all three were back %d ms"
                + " after it (Redis clock)%n", LEASE_MILLIS, latestExpiry - killed, back - killed);
        assertThat(admitted).as("permits that came back").isEqualTo(3);
        assertThat(back - killed).as("ms from the kill until every permit came back")
                .isLessThanOrEqualTo(LEASE_MILLIS + 500);
        assertThat(redis.admin().zcard(key)).as("only this node's permits are left").isEqualTo(3);
    }

    private static long redisMillis() {
        return (Long) redis.admin().eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }
}
