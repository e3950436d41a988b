package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.test.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemDetailsTest {

    @Test
    void describesA429WithTheDraftProblemTypeAndExtensionMembers() {
        ProblemDetails p = ProblemDetails.tooManyRequests(List.of(
                RateLimitDecision.of("api", true, 50, 100, 60, 0, 100),
                RateLimitDecision.of("login", false, 0, 5, 60, 11_500, 60_000)));
        Map<String, Object> json = Json.parseObject(p.toJson());
        assertThat(json).containsEntry("type", ProblemDetails.QUOTA_EXCEEDED)
                .containsEntry("title", "Quota Exceeded")
                .containsEntry("status", 429L)
                .containsEntry("detail", "Rate limit 'login' exceeded; retry after 12 seconds.")
                .containsEntry("policy", "login")
                .containsEntry("violated-policies", List.of("login"))
                .containsEntry("retryAfter", 12L);
    }

    @Test
    void leavesOutRetryAfterWhenTheRequestCanNeverPass() {
        ProblemDetails p = ProblemDetails.tooManyRequests(List.of(
                RateLimitDecision.of("bulk", false, 0, 5, 60, RateLimitDecision.NEVER, 0)));
        Map<String, Object> json = Json.parseObject(p.toJson());
        assertThat(json).doesNotContainKey("retryAfter");
        assertThat((String) json.get("detail")).contains("can never be admitted");
    }

    @Test
    void describesA503WithAboutBlank() {
        Map<String, Object> json = Json.parseObject(ProblemDetails.serviceUnavailable(1).toJson());
        assertThat(json).containsEntry("type", "about:blank").containsEntry("title", "Service Unavailable")
                .containsEntry("status", 503L).containsEntry("retryAfter", 1L)
                .containsEntry("detail", "The store that rate limits are checked against cannot be reached; retry after 1 second.")
                .doesNotContainKeys("policy", "violated-policies");
    }

    @Test
    void escapesEverythingJsonRequiresAndWhatWouldNotSurviveUtf8() {
        String nasty = "q\"b\\s/\n\r\t\b\f\u0000\u001f\u007f\u2028\u2029\ud800x\udc00 caf\u00e9 \ud83d\ude00";
        String quoted = ProblemDetails.quote(nasty);
        assertThat(quoted).doesNotContain("\n", "\r", "\u0000", "\u2028", "\u007f");
        assertThat(quoted).contains("\\ud800", "\\udc00", "\ud83d\ude00", "\\u0000", "\\u001f", "\\u007f", "\\u2028");
        assertThat(Json.parse(quoted)).isEqualTo(nasty);
    }

    @Test
    void escapesPolicyNamesInTheBody() {
        ProblemDetails p = ProblemDetails.tooManyRequests(List.of(
                RateLimitDecision.of("a\"b", false, 0, 5, 60, 1000, 60_000)));
        assertThat(Json.parseObject(p.toJson())).containsEntry("policy", "a\"b");
    }
}
