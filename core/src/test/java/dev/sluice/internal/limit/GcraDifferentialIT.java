package dev.sluice.internal.limit;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Feeds the same random request sequences to Redis ({@code gcra.lua}) and to the in-process store
 * ({@link Gcra}) and requires identical decisions, request by request.
 *
 * <p>Both must see the same clock, so Redis runs the bundled script with its one clock line replaced by a
 * time passed as the last argument; every other line is the production script.
 */
class GcraDifferentialIT {

    private static final int OPERATIONS = 12_000;

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static LuaScript scriptOnPinnedClock() {
        LuaScript bundled = LuaScript.bundled("gcra");
        String pinned = bundled.source().replace("local now = clock()", "local now = tonumber(ARGV[#ARGV])");
        assertThat(pinned).as("the script's clock line moved; update this test").isNotEqualTo(bundled.source());
        // Keys must outlive the pinned clock's jumps in real time: both expiries (fast path, general path) + 1 h.
        for (String expiry : List.of("math.ceil(ahead / 1000)", "math.ceil(ceil_div(ahead, units) / 1000)")) {
            assertThat(pinned).as("the script's expiry moved; update this test").contains(expiry);
            pinned = pinned.replace(expiry, expiry + " + 3600000");
        }
        // Permit sets likewise: their absolute expiry (pinned clock) lies in the real past.
        String permitExpiry = "redis.call('PEXPIREAT', set.key, latest)";
        assertThat(pinned).as("the script's permit set expiry moved; update this test").contains(permitExpiry);
        pinned = pinned.replace(permitExpiry, "redis.call('PEXPIRE', set.key, latest - set.now + 3600000)");
        return LuaScript.of("gcra-pinned-clock", pinned, "test");
    }

    @Test
    void redisAndTheInProcessStoreDecideAlike() {
        long seed = Long.getLong("sluice.differential.seed", System.nanoTime());
        Random random = new Random(seed);
        ScriptExecutor redis = new ScriptExecutor(REDIS::admin, RedisSettings.Mode.STANDALONE);
        LuaScript script = scriptOnPinnedClock();
        AtomicLong now = new AtomicLong(1_795_000_000_000_000L);
        InProcessRateLimitStore local = new InProcessRateLimitStore(now::get);

        List<List<BucketRequest.Limit>> shapes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            shapes.add(randomShape(random));
        }
        // gcra.lua decides one policy of one bandwidth on a path of its own: make sure it is fed.
        shapes.set(0, randomShape(random).subList(0, 1));
        int alone = 0;
        int denied = 0;
        int never = 0;
        int reshaped = 0;
        int fractional = 0;
        int reserved = 0;
        int refundedToFull = 0;
        java.util.Set<ChargeMode> modesSeen = java.util.EnumSet.noneOf(ChargeMode.class);
        int concurrencyRefused = 0;
        for (int op = 0; op < OPERATIONS; op++) {
            List<BucketRequest> requests = new ArrayList<>();
            int policies = 1 + random.nextInt(3);
            for (int p = 0; p < policies; p++) {
                int shape = random.nextInt(shapes.size());
                List<BucketRequest.Limit> limits = shapes.get(shape);
                if (random.nextInt(25) == 0) {
                    // The limit of a key changed (a redeployment): its bucket may now be more than full-bucket ahead.
                    List<BucketRequest.Limit> other = shapes.get(random.nextInt(shapes.size()));
                    limits = other.size() >= limits.size() ? other.subList(0, limits.size()) : limits;
                    reshaped++;
                }
                long cost = 1 + random.nextInt((int) Math.min(limits.get(0).capacity() + 1, 6));
                String key = "sluice:rl:{p" + shape + ":k" + random.nextInt(4) + "}";
                // Mostly enforced, as in production; every other mode often enough to meet each state.
                ChargeMode[] modes = ChargeMode.values();
                ChargeMode mode = random.nextInt(2) == 0 ? ChargeMode.ENFORCE : modes[random.nextInt(modes.length)];
                if (mode.concurrency()) {
                    // A concurrency limit: a permit set of 1 to 3 permits with leases of up to 2 s.
                    String set = "sluice:cc:{c" + random.nextInt(3) + "}";
                    if (requests.stream().noneMatch(r -> r.key().equals(set))) {
                        requests.add(BucketRequest.permits(set, mode, new BucketRequest.Permit(1 + random.nextInt(3),
                                1 + random.nextInt(2000), permitId(random, op, p))));
                        modesSeen.add(mode);
                    }
                    continue;
                }
                if (requests.stream().noneMatch(r -> r.key().equals(key))) {
                    // A local budget's reservation now and then: up to 7 tokens beyond the cost.
                    long reserve = mode != ChargeMode.REFUND && random.nextInt(4) == 0 ? random.nextInt(8) : 0;
                    requests.add(new BucketRequest(key, cost, limits, mode, null, reserve));
                    modesSeen.add(mode);
                }
            }
            List<String> args = new ArrayList<>(GcraProtocol.args(requests));
            args.add(Long.toString(now.get()));
            List<BucketOutcome> fromRedis = GcraProtocol.outcomes(
                    redis.eval(script, GcraProtocol.keys(requests), args), requests, script);
            List<BucketOutcome> fromJava = local.consume(requests);

            assertThat(fromJava).as("operation %d of seed %d: %s", op, seed, requests).isEqualTo(fromRedis);
            alone += requests.size() == 1 && requests.get(0).limits().size() == 1 ? 1 : 0;
            denied += fromJava.stream().anyMatch(o -> !o.allowed()) ? 1 : 0;
            for (int r = 0; r < requests.size(); r++) {
                concurrencyRefused += requests.get(r).permit() != null && !fromJava.get(r).allowed() ? 1 : 0;
            }
            never += fromJava.stream().anyMatch(o -> o.waitMicros() < 0) ? 1 : 0;
            reserved += fromJava.stream().anyMatch(o -> o.reserved() > 0) ? 1 : 0;
            for (int r = 0; r < requests.size(); r++) {
                refundedToFull += requests.get(r).mode() == ChargeMode.REFUND && fromJava.get(r).resetMicros() == 0 ? 1 : 0;
            }
            fractional += requests.stream().anyMatch(r -> r.limits().stream().anyMatch(l -> l.unitsPerMicro() > 1)) ? 1 : 0;

            BucketRequest.Limit pace = shapes.get(random.nextInt(shapes.size())).get(0);
            double interval = pace.intervalUnits() / (double) pace.unitsPerMicro();
            now.addAndGet(random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * 2 * interval));
        }
        // The sequence must exercise both answers, or it proves little.
        assertThat(denied).isBetween(OPERATIONS / 20, OPERATIONS - OPERATIONS / 20);
        assertThat(never).isPositive();
        assertThat(alone).as("decisions of one policy of one bandwidth").isGreaterThan(OPERATIONS / 50);
        assertThat(fractional).as("decisions with an interval that is not whole microseconds").isGreaterThan(OPERATIONS / 10);
        assertThat(reshaped).isPositive();
        assertThat(reserved).as("decisions that reserved tokens for a local budget").isGreaterThan(OPERATIONS / 100);
        assertThat(refundedToFull).as("refunds that left a bucket full").isPositive();
        assertThat(modesSeen).containsExactlyInAnyOrder(ChargeMode.values());
        assertThat(concurrencyRefused).as("concurrency limits without a free permit").isPositive();
    }

    /**
     * Mostly a fresh permit id; now and then that of a recent operation, as the one retry of a decision whose
     * connection broke asks again under its permit id (and may find its own permit).
     */
    private static String permitId(Random random, int op, int policy) {
        return "op" + (random.nextInt(8) == 0 ? Math.max(0, op - 1 - random.nextInt(3)) : op) + "-" + policy;
    }

    /**
     * Up to three bandwidths, each slower than the one before; half of them with an interval that is not a whole
     * number of microseconds (units of 1/3, 1/7, 1/9999, 1/999999 µs or a random fraction).
     */
    private static List<BucketRequest.Limit> randomShape(Random random) {
        List<BucketRequest.Limit> limits = new ArrayList<>();
        int bandwidths = 1 + random.nextInt(3);
        long[] fractions = {1, 1, 1, 3, 7, 9999, 999_999, 1 + random.nextInt(1_000_000)};
        double micros = 1 + random.nextInt(400_000);
        for (int b = 0; b < bandwidths; b++) {
            long units = fractions[random.nextInt(fractions.length)];
            limits.add(new BucketRequest.Limit(Math.max(1, (long) (micros * units) + random.nextInt((int) units)),
                    units, 1 + random.nextInt(12)));
            micros *= 2 + random.nextInt(5);
        }
        return limits;
    }
}
