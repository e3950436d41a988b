package dev.sluice.internal.http;

import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.BucketOutcome;
import dev.sluice.internal.limit.BucketRequest;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.limit.RateLimitStore;
import dev.sluice.StoreUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitGateTest {

    /** The in-process store behind a switch that makes it fail like an unreachable Redis. */
    static final class SwitchableStore implements RateLimitStore {
        final InProcessRateLimitStore real = new InProcessRateLimitStore();
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean down;

        @Override
        public List<BucketOutcome> consume(List<BucketRequest> requests) {
            calls.incrementAndGet();
            if (down) {
                throw new StoreUnavailableException("connection refused", null);
            }
            return real.consume(requests);
        }

        @Override
        public void close() {
        }
    }

    private final PolicyConfig login = new PolicyConfig("login", List.of(new Bandwidth(5, Duration.ofMinutes(1), 5)),
            KeySpec.IP, List.of("/login"), Set.of(), 1, true);
    private final SwitchableStore store = new SwitchableStore();
    private final AtomicLong nanos = new AtomicLong();
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "test store");

    private RateLimitGate gate(FailureMode mode) {
        return new RateLimitGate(new RateLimitEngine(store, "sluice"), mode, breaker);
    }

    private List<LimitCall> call() {
        return List.of(new LimitCall(login, "192.0.2.1", 1));
    }

    @Test
    void deniesTheSixthRequestOfAFivePerMinutePolicy() {
        RateLimitGate gate = gate(FailureMode.ALLOW);
        for (int i = 0; i < 5; i++) {
            Verdict v = gate.check(call());
            assertThat(v.admitted()).isTrue();
            assertThat(v.decisions().get(0).remaining()).isEqualTo(4 - i);
        }
        Verdict denied = gate.check(call());
        assertThat(denied.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(denied.status()).isEqualTo(429);
        assertThat(denied.headers(HeaderMode.IETF)).extracting(RateLimitHeaders.Header::name)
                .containsExactly("Retry-After", "RateLimit-Policy", "RateLimit");
        assertThat(denied.problem().status()).isEqualTo(429);
    }

    @Test
    void touchesNoStoreWithoutCalls() {
        assertThat(gate(FailureMode.DENY).check(List.of())).isSameAs(Verdict.NOTHING_TO_CHECK);
        assertThat(store.calls).hasValue(0);
    }

    @Test
    void admitsWithoutHeadersWhenTheStoreIsDownAndFailingOpen() {
        store.down = true;
        Verdict v = gate(FailureMode.ALLOW).check(call());
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE_ALLOWED);
        assertThat(v.admitted()).isTrue();
        assertThat(v.headers(HeaderMode.BOTH)).isEmpty();
    }

    @Test
    void answers503WithRetryAfterWhenTheStoreIsDownAndFailingClosed() {
        store.down = true;
        Verdict v = gate(FailureMode.DENY).check(call());
        assertThat(v.admitted()).isFalse();
        assertThat(v.status()).isEqualTo(503);
        assertThat(v.headers(HeaderMode.IETF)).containsExactly(new RateLimitHeaders.Header("Retry-After", "1"));
        assertThat(v.problem().status()).isEqualTo(503);
    }

    @Test
    void stopsCallingADeadStoreOnceTheBreakerOpensAndProbesAfterTheCoolDown() {
        store.down = true;
        RateLimitGate gate = gate(FailureMode.DENY);
        for (int i = 0; i < 10; i++) {
            assertThat(gate.check(call()).status()).isEqualTo(503);
        }
        assertThat(store.calls).as("only the failures up to the threshold reach the store").hasValue(3);
        assertThat(gate.isBreakerOpen()).isTrue();

        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        store.down = false;
        assertThat(gate.check(call()).admitted()).isTrue();
        assertThat(store.calls).hasValue(4);
        assertThat(gate.isBreakerOpen()).isFalse();
    }

    @Test
    void retryAfterOfA503CoversTheRestOfTheCoolDown() {
        store.down = true;
        RateLimitGate gate = gate(FailureMode.DENY);
        for (int i = 0; i < 3; i++) {
            gate.check(call());
        }
        nanos.addAndGet(Duration.ofMillis(200).toNanos());
        assertThat(gate.check(call()).retryAfterSeconds()).isEqualTo(1);
    }
}
