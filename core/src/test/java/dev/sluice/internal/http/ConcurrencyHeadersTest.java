package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.HeaderMode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How a concurrency limit's decision reads in headers and the problem body. */
class ConcurrencyHeadersTest {

    private final RateLimitDecision full = RateLimitDecision.ofConcurrency("reports", false, 0, 4, 1000, 30_000);
    private final RateLimitDecision rate = RateLimitDecision.of("api", true, 7, 10, 60, 0, 18_000);

    @Test
    void aRefusalNamesTheQuotaUnitOfRequestsInFlightAndNoWindow() {
        assertThat(RateLimitHeaders.denied(List.of(full, rate), HeaderMode.IETF)).containsExactly(
                new RateLimitHeaders.Header("Retry-After", "1"),
                new RateLimitHeaders.Header("RateLimit-Policy", "\"reports\";q=4;qu=\"concurrent-requests\""),
                new RateLimitHeaders.Header("RateLimit", "\"reports\";r=0;t=1"));
    }

    @Test
    void legacyHeadersTellThePermitsAndTheFreeOnes() {
        assertThat(RateLimitHeaders.denied(List.of(full), HeaderMode.LEGACY)).containsExactly(
                new RateLimitHeaders.Header("Retry-After", "1"),
                new RateLimitHeaders.Header("X-RateLimit-Limit", "4"),
                new RateLimitHeaders.Header("X-RateLimit-Remaining", "0"),
                new RateLimitHeaders.Header("X-RateLimit-Reset", "30"));
    }

    @Test
    void anAdmittedRequestShowsTheLimitWithTheFewestLeft() {
        RateLimitDecision oneFree = RateLimitDecision.ofConcurrency("reports", true, 1, 4, 0, 30_000);
        assertThat(RateLimitHeaders.allowed(List.of(rate, oneFree), HeaderMode.IETF)).containsExactly(
                new RateLimitHeaders.Header("RateLimit-Policy", "\"reports\";q=4;qu=\"concurrent-requests\""),
                new RateLimitHeaders.Header("RateLimit", "\"reports\";r=1;t=0"));
    }

    @Test
    void theProblemBodySaysHowManyRequestsAreInFlight() {
        ProblemDetails problem = ProblemDetails.tooManyRequests(List.of(full));
        assertThat(problem.detail())
                .isEqualTo("Concurrency limit 'reports' reached (4 requests in flight); retry after 1 second.");
        assertThat(problem.policy()).isEqualTo("reports");
        assertThat(problem.retryAfter()).isEqualTo(1);
        assertThat(full.concurrent()).isTrue();
        assertThat(rate.concurrent()).isFalse();
    }
}
