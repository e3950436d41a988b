package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.CountedStatuses;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lock.ManualScheduler;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A decision under a concurrency limit that fails in the store, on a clock and a scheduler the test moves: the
 * permit it may have taken is returned in the background, unless the call never left the node (an exhausted pool).
 */
class LostDecisionReturnTest {

    private static final long LEASE_MILLIS = 3000;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private final ManualScheduler scheduler = new ManualScheduler();
    private final Watchdog watchdog = scheduler.watchdog(nanos::get);
    private final List<String> returned = new CopyOnWriteArrayList<>();
    private volatile RuntimeException failure;

    private final RateLimitEngine engine = new RateLimitEngine(new RateLimitStore() {
        @Override
        public List<BucketOutcome> consume(List<BucketRequest> requests) {
            throw new StoreUnavailableException("Redis rate-limit call failed: " + failure.getMessage(), failure);
        }

        @Override
        public int release(List<String> keys, String permitId) {
            returned.add(keys + " " + permitId);
            return 1;
        }

        @Override
        public boolean renew(String key, String permitId, long leaseMillis) {
            return true;
        }

        @Override
        public void close() {
        }
    }, "sluice", new CircuitBreaker(100, Duration.ofSeconds(1), nanos::get, "test"), new DenyCache(0, nanos::get),
            () -> watchdog, SluiceMetrics.unpublished(RedisSettings.none()).rateLimits());

    @AfterEach
    void stop() {
        watchdog.close();
        scheduler.shutdownNow();
    }

    private void decideAndFail(String permitId) {
        PolicyConfig reports = new PolicyConfig("reports", List.of(), KeySpec.IP, List.of(), Set.of(), 1, true,
                FailureMode.ALLOW, PolicyMode.ENFORCE, CountedStatuses.ALL, Exemptions.NONE, 1, LEASE_MILLIS);
        assertThatThrownBy(() -> engine.decide(List.of(RateLimitEngine.LimitCall.concurrency(reports, "alice",
                ChargeMode.CONCURRENCY, permitId)))).isInstanceOf(StoreUnavailableException.class);
    }

    private void after(long millis) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        scheduler.runPending();
    }

    @Test
    void aDecisionWhoseReplyTimedOutHasItsPermitReturnedOnce() {
        failure = new JedisConnectionException(new SocketTimeoutException("Read timed out"));
        decideAndFail("lost");
        after(PermitReturns.RETRY_MILLIS);
        assertThat(returned).containsExactly("[" + engine.permitKey("reports", "alice") + "] lost");
        after(LEASE_MILLIS);
        assertThat(returned).as("returned: no more tries").hasSize(1);
    }

    @Test
    void aDecisionThatFoundThePoolExhaustedNeverLeftTheNodeAndReturnsNothing() {
        failure = new JedisConnectionException("Could not get a resource from the pool");
        decideAndFail("never-sent");
        after(LEASE_MILLIS);
        assertThat(returned).isEmpty();
    }
}
