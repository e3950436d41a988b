package dev.sluice.sample.it;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks of the HTTP behaviour the contract promises, as seen by a client. */
final class ContractAssertions {

    private ContractAssertions() {
    }

    /** An allowed response carrying the policy's headers with {@code remaining} tokens left. */
    static void assertAllowed(HttpResponse<String> response, String policy, int limit, int windowSeconds,
            int remaining) {
        assertThat(response.statusCode()).as(describe(response)).isBetween(200, 299);
        assertThat(header(response, "RateLimit-Policy")).as(describe(response))
                .isEqualTo("\"" + policy + "\";q=" + limit + ";w=" + windowSeconds);
        assertThat(header(response, "RateLimit")).as(describe(response))
                .startsWith("\"" + policy + "\";r=" + remaining + ";t=");
    }

    /** A denial: 429, Retry-After, both RateLimit fields and an RFC 9457 problem body. */
    static void assertDenied(HttpResponse<String> response, String policy, int limit, int windowSeconds) {
        assertThat(response.statusCode()).as(describe(response)).isEqualTo(429);
        assertThat(header(response, "Retry-After")).as(describe(response)).matches("[1-9][0-9]*");
        assertThat(header(response, "RateLimit-Policy")).as(describe(response))
                .isEqualTo("\"" + policy + "\";q=" + limit + ";w=" + windowSeconds);
        assertThat(header(response, "RateLimit")).as(describe(response))
                .matches("\"" + policy + "\";r=0;t=[1-9][0-9]*");
        assertThat(header(response, "Content-Type")).as(describe(response)).startsWith("application/problem+json");
        assertThat(response.body()).as(describe(response))
                .containsPattern("\"status\"\\s*:\\s*429").contains("\"type\"", "\"title\"", "\"detail\"");
    }

    static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    static String describe(HttpResponse<String> response) {
        return response.request().method() + " " + response.uri() + " -> " + response.statusCode() + " "
                + response.headers().map() + " " + response.body();
    }
}
