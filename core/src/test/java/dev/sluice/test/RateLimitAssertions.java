package dev.sluice.test;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks what a client sees from a rate-limited endpoint, the same way for the servlet filter and the
 * JAX-RS filter: status, {@code Retry-After}, the IETF {@code RateLimit-Policy} / {@code RateLimit} fields
 * parsed as Structured Field Lists ({@link StructuredFields}), the legacy {@code X-RateLimit-*} headers
 * and the RFC 9457 problem body ({@link Json}).
 *
 * <p>Every method throws {@link AssertionError} with a message that shows the response, so it works
 * with any test framework and needs no assertion library. Stateless and thread-safe.
 *
 * <p>Typical use:
 * <pre>{@code
 * for (int i = 0; i < 5; i++) {
 *     RateLimitAssertions.assertAllowed(client.send(get, ofString()), "login", 5, 60);
 * }
 * RateLimitFields denied = RateLimitAssertions.assertTooManyRequests(client.send(get, ofString()), "login", 5, 60);
 * }</pre>
 */
public final class RateLimitAssertions {

    /**
     * The IETF fields of one response, as parsed.
     *
     * @param policy        the policy named in both fields
     * @param quota         {@code q} of {@code RateLimit-Policy}
     * @param windowSeconds {@code w} of {@code RateLimit-Policy}
     * @param remaining     {@code r} of {@code RateLimit}
     * @param resetSeconds  {@code t} of {@code RateLimit}; empty when absent
     * @param retryAfter    {@code Retry-After} in seconds; empty when absent
     */
    public record RateLimitFields(String policy, long quota, long windowSeconds, long remaining,
                                  Optional<Long> resetSeconds, Optional<Long> retryAfter) {
    }

    private RateLimitAssertions() {
    }

    /**
     * Asserts that the request was admitted by a policy whose limit is described in IETF headers: the
     * status is neither 429 nor 503, there is no {@code Retry-After}, and {@code RateLimit-Policy} and
     * {@code RateLimit} are valid Structured Field Lists of one item each, naming {@code policy}, with
     * {@code q=limit}, {@code w=windowSeconds}, {@code 0 <= r <= limit} and {@code t >= 0} (and
     * {@code t = 0} while {@code r > 0}).
     *
     * @return the parsed fields, e.g. to check {@code remaining()}
     */
    public static RateLimitFields assertAllowed(HttpResponse<?> response, String policy, long limit, long windowSeconds) {
        check(response, response.statusCode() != 429 && response.statusCode() != 503,
                "expected an admitted request, got status " + response.statusCode());
        check(response, response.headers().firstValue("Retry-After").isEmpty(),
                "an admitted request must not carry Retry-After");
        RateLimitFields fields = ietfFields(response, policy, limit, windowSeconds);
        check(response, fields.resetSeconds().isPresent(), "RateLimit lacks t");
        long t = fields.resetSeconds().get();
        check(response, fields.remaining() == 0 || t == 0, "t must be 0 while tokens remain, was " + t);
        return fields;
    }

    /**
     * Asserts a 429 from {@code policy}: {@code Retry-After} is a whole number of seconds and at least 1;
     * the IETF fields are valid, name {@code policy} with {@code q=limit} and {@code w=windowSeconds},
     * {@code 0 <= r < limit} and {@code 1 <= t <= Retry-After} (Retry-After is never earlier than the next
     * token); the body is {@code application/problem+json} with {@code type}, {@code title},
     * {@code status} 429 and {@code detail}, and, where present, {@code policy} equal to {@code policy} and
     * {@code retryAfter} equal to the header.
     *
     * @return the parsed fields; {@code retryAfter()} is always present
     */
    public static RateLimitFields assertTooManyRequests(HttpResponse<String> response, String policy, long limit,
                                                        long windowSeconds) {
        check(response, response.statusCode() == 429, "expected status 429, got " + response.statusCode());
        long retryAfter = retryAfterSeconds(response);
        RateLimitFields fields = ietfFields(response, policy, limit, windowSeconds);
        check(response, fields.remaining() < limit, "a denied request cannot have r=limit");
        check(response, fields.resetSeconds().isPresent(), "RateLimit lacks t");
        long t = fields.resetSeconds().get();
        check(response, t >= 1 && t <= retryAfter, "expected 1 <= t <= Retry-After, got t=" + t
                + " and Retry-After=" + retryAfter);
        Map<String, Object> problem = assertProblem(response, 429);
        if (problem.containsKey("policy")) {
            check(response, policy.equals(problem.get("policy")), "problem member policy is " + problem.get("policy"));
        }
        if (problem.containsKey("retryAfter")) {
            check(response, Long.valueOf(retryAfter).equals(problem.get("retryAfter")),
                    "problem member retryAfter differs from the header");
        }
        return new RateLimitFields(fields.policy(), fields.quota(), fields.windowSeconds(), fields.remaining(),
                fields.resetSeconds(), Optional.of(retryAfter));
    }

    /**
     * Asserts the answer of {@code sluice.on-redis-failure=deny} while Redis is unreachable: 503, a
     * {@code Retry-After} of at least 1 second, and a problem body with status 503 whose detail says that the
     * store cannot be reached.
     *
     * @return the {@code Retry-After} seconds
     */
    public static long assertServiceUnavailable(HttpResponse<String> response) {
        check(response, response.statusCode() == 503, "expected status 503, got " + response.statusCode());
        long retryAfter = retryAfterSeconds(response);
        Map<String, Object> problem = assertProblem(response, 503);
        check(response, String.valueOf(problem.get("detail")).contains("cannot be reached"),
                "problem detail does not say that the store cannot be reached");
        return retryAfter;
    }

    /**
     * Asserts the legacy headers ({@code sluice.headers=legacy} or {@code both}):
     * {@code X-RateLimit-Limit} equals {@code limit}, {@code X-RateLimit-Remaining} lies in
     * {@code [0, limit]} and {@code X-RateLimit-Reset} is a non-negative whole number of seconds.
     *
     * @return {@code X-RateLimit-Remaining}
     */
    public static long assertLegacyHeaders(HttpResponse<?> response, long limit) {
        long actualLimit = wholeNumber(response, "X-RateLimit-Limit");
        long remaining = wholeNumber(response, "X-RateLimit-Remaining");
        wholeNumber(response, "X-RateLimit-Reset");
        check(response, actualLimit == limit, "X-RateLimit-Limit is " + actualLimit + ", expected " + limit);
        check(response, remaining <= limit, "X-RateLimit-Remaining " + remaining + " exceeds the limit");
        return remaining;
    }

    /** Asserts that the response carries none of the rate-limit headers ({@code sluice.headers=none}, or no policy). */
    public static void assertNoRateLimitHeaders(HttpResponse<?> response) {
        for (String name : List.of("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining",
                "X-RateLimit-Reset")) {
            check(response, response.headers().firstValue(name).isEmpty(), "unexpected header " + name);
        }
    }

    /**
     * The {@code Retry-After} of the response in seconds, asserting that it is present, a plain whole
     * number (delay-seconds, not an HTTP date) and at least 1.
     */
    public static long retryAfterSeconds(HttpResponse<?> response) {
        long seconds = wholeNumber(response, "Retry-After");
        check(response, seconds >= 1, "Retry-After must never be 0 on a refusal");
        return seconds;
    }

    /**
     * Asserts an RFC 9457 body: content type {@code application/problem+json}, a JSON object with string
     * {@code type}, {@code title} and {@code detail} and the given integer {@code status}.
     *
     * @return the parsed members, for further checks
     */
    public static Map<String, Object> assertProblem(HttpResponse<String> response, int status) {
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        check(response, contentType.toLowerCase().startsWith("application/problem+json"),
                "Content-Type is '" + contentType + "'");
        Map<String, Object> problem;
        try {
            problem = Json.parseObject(response.body());
        } catch (IllegalArgumentException e) {
            throw new AssertionError(e.getMessage() + "\n" + describe(response), e);
        }
        for (String member : List.of("type", "title", "detail")) {
            check(response, problem.get(member) instanceof String text && !text.isEmpty(),
                    "problem member " + member + " missing or not a string");
        }
        check(response, Long.valueOf(status).equals(problem.get("status")), "problem status is " + problem.get("status"));
        return problem;
    }

    private static RateLimitFields ietfFields(HttpResponse<?> response, String policy, long limit, long windowSeconds) {
        StructuredFields.Item policyItem = singleItem(response, "RateLimit-Policy");
        StructuredFields.Item limitItem = singleItem(response, "RateLimit");
        check(response, policy.equals(policyItem.value()), "RateLimit-Policy names " + policyItem.value()
                + ", expected the string \"" + policy + "\"");
        check(response, policy.equals(limitItem.value()), "RateLimit names " + limitItem.value()
                + ", expected the string \"" + policy + "\"");
        long q = integerParameter(response, policyItem, "q", "RateLimit-Policy");
        long w = integerParameter(response, policyItem, "w", "RateLimit-Policy");
        long r = integerParameter(response, limitItem, "r", "RateLimit");
        check(response, q == limit, "q=" + q + ", expected " + limit);
        check(response, w == windowSeconds, "w=" + w + ", expected " + windowSeconds);
        check(response, r >= 0 && r <= limit, "r=" + r + " outside [0, " + limit + "]");
        Optional<Long> t = limitItem.parameters().containsKey("t")
                ? Optional.of(integerParameter(response, limitItem, "t", "RateLimit")) : Optional.empty();
        t.ifPresent(v -> check(response, v >= 0, "t is negative"));
        Optional<Long> retryAfter = response.headers().firstValue("Retry-After").map(Long::parseLong);
        return new RateLimitFields(policy, q, w, r, t, retryAfter);
    }

    private static StructuredFields.Item singleItem(HttpResponse<?> response, String field) {
        List<String> lines = response.headers().allValues(field);
        check(response, !lines.isEmpty(), "missing " + field);
        List<StructuredFields.Item> items;
        try {
            items = StructuredFields.parseList(String.join(", ", lines));
        } catch (IllegalArgumentException e) {
            throw new AssertionError(field + ": " + e.getMessage() + "\n" + describe(response), e);
        }
        check(response, items.size() == 1, field + " has " + items.size() + " items, expected 1");
        return items.get(0);
    }

    private static long integerParameter(HttpResponse<?> response, StructuredFields.Item item, String name, String field) {
        Object value = item.parameter(name);
        check(response, value instanceof Long, field + " parameter " + name + " is not an Integer: " + value);
        return (Long) value;
    }

    private static long wholeNumber(HttpResponse<?> response, String header) {
        String value = response.headers().firstValue(header).orElse(null);
        check(response, value != null, "missing " + header);
        check(response, value.matches("[0-9]{1,15}"), header + " is not a whole number: '" + value + "'");
        return Long.parseLong(value);
    }

    private static void check(HttpResponse<?> response, boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message + "\n" + describe(response));
        }
    }

    private static String describe(HttpResponse<?> response) {
        HttpHeaders headers = response.headers();
        StringBuilder out = new StringBuilder("HTTP ").append(response.statusCode()).append(' ')
                .append(response.request().method()).append(' ').append(response.uri()).append('\n');
        headers.map().forEach((name, values) -> values.forEach(v -> out.append(name).append(": ").append(v).append('\n')));
        Object body = response.body();
        if (body instanceof String text) {
            out.append('\n').append(text.length() > 2000 ? text.substring(0, 2000) + "..." : text);
        }
        return out.toString();
    }
}
