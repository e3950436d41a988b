package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.HeaderMode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The response headers of a rate-limited request, shared by the servlet and JAX-RS filters.
 *
 * <p>IETF mode follows draft-ietf-httpapi-ratelimit-headers-11 (the fields are Structured Field Lists,
 * RFC 9651):
 * <pre>
 * RateLimit-Policy: "login";q=5;w=60
 * RateLimit: "login";r=0;t=12
 * </pre>
 * The fields describe the bucket of the policy's tightest bandwidth: {@code q} is its capacity (the burst, or
 * the token count without one) and {@code w} the seconds it takes to refill from empty (the period without a
 * burst), so that {@code r}, the tokens left, never exceeds {@code q}; {@code t} is the seconds, rounded up,
 * until the request could pass again (when allowed, until one more token is available in every bandwidth, so 0
 * while tokens remain). {@code t} is left out when the request can never pass (its cost exceeds the bucket).
 * Legacy mode writes the same bucket as {@code X-RateLimit-Limit} (= {@code q}), {@code X-RateLimit-Remaining}
 * (= {@code r}) and {@code X-RateLimit-Reset} (seconds until the bucket is full). Every number stays within the
 * 15 digits of a Structured Fields Integer because configuration refuses larger buckets.
 *
 * <p>A concurrency limit ({@code sluice.limit.<policy>.concurrency}) is described with the draft's quota unit
 * for requests in flight and no window: {@code RateLimit-Policy: "reports";q=4;qu="concurrent-requests"},
 * {@code r} being the free permits.
 *
 * <p>Allowed responses describe the policy with the fewest remaining tokens. Denied responses describe
 * the denying policy with the longest wait and always carry {@code Retry-After} (whole seconds, rounded
 * up, at least 1, so never earlier than the next token and never before {@code t}), whatever
 * {@code sluice.headers} says, because it is part of a 429 rather than an informational header. Thread-safe;
 * its only state is each policy's {@code RateLimit-Policy} field, kept once written.
 */
public final class RateLimitHeaders {

    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";
    public static final String RETRY_AFTER = "Retry-After";
    public static final String LEGACY_LIMIT = "X-RateLimit-Limit";
    public static final String LEGACY_REMAINING = "X-RateLimit-Remaining";
    public static final String LEGACY_RESET = "X-RateLimit-Reset";

    /** One response header. */
    public record Header(String name, String value) {
    }

    private RateLimitHeaders() {
    }

    /** Headers for an admitted request; empty for no decisions or {@link HeaderMode#NONE}. */
    public static List<Header> allowed(List<RateLimitDecision> decisions, HeaderMode mode) {
        RateLimitDecision tightest = null;
        for (RateLimitDecision d : decisions) {
            if (tightest == null || d.remaining() < tightest.remaining()) {
                tightest = d;
            }
        }
        List<Header> headers = new ArrayList<>(4);
        if (tightest != null) {
            describe(tightest, mode, headers);
        }
        return headers;
    }

    /**
     * Headers for a denied request: {@code Retry-After} (unless no wait can help) and the description
     * of {@link #denying(List) the denying policy}.
     *
     * @param decisions every decision of the request, at least one of them denied
     */
    public static List<Header> denied(List<RateLimitDecision> decisions, HeaderMode mode) {
        RateLimitDecision denying = denying(decisions);
        List<Header> headers = new ArrayList<>(5);
        long retryAfter = retryAfterSeconds(decisions);
        if (retryAfter > 0) {
            headers.add(new Header(RETRY_AFTER, Long.toString(retryAfter)));
        }
        describe(denying, mode, headers);
        return headers;
    }

    /**
     * The denied decision the client has to wait longest for (one that can never pass wins); it names
     * the policy in the headers and the problem body.
     *
     * @throws IllegalArgumentException when nothing was denied
     */
    public static RateLimitDecision denying(List<RateLimitDecision> decisions) {
        RateLimitDecision worst = null;
        for (RateLimitDecision d : decisions) {
            if (!d.allowed() && (worst == null || waitOrder(d) > waitOrder(worst))) {
                worst = d;
            }
        }
        if (worst == null) {
            throw new IllegalArgumentException("no denied decision in " + decisions);
        }
        return worst;
    }

    /**
     * {@code Retry-After} of a denied request: the longest wait of the denying policies in whole seconds,
     * rounded up and at least 1; 0 when some policy can never admit the request (no header is written).
     */
    public static long retryAfterSeconds(List<RateLimitDecision> decisions) {
        long millis = 0;
        for (RateLimitDecision d : decisions) {
            if (!d.allowed()) {
                if (d.never()) {
                    return 0;
                }
                millis = Math.max(millis, d.retryAfterMillis());
            }
        }
        return Math.max(1, ceilSeconds(millis));
    }

    /** {@code Retry-After} of a 503 answered while the store is unreachable. */
    public static Header retryAfter(long seconds) {
        return new Header(RETRY_AFTER, Long.toString(Math.max(1, seconds)));
    }

    private static long waitOrder(RateLimitDecision d) {
        return d.never() ? Long.MAX_VALUE : d.retryAfterMillis();
    }

    private static void describe(RateLimitDecision d, HeaderMode mode, List<Header> out) {
        if (mode == HeaderMode.IETF || mode == HeaderMode.BOTH) {
            Described policy = described(d);
            out.add(new Header(RATE_LIMIT_POLICY, policy.field()));
            out.add(new Header(RATE_LIMIT, policy.quoted() + ";r=" + d.remaining()
                    + (d.never() ? "" : ";t=" + ceilSeconds(d.retryAfterMillis()))));
        }
        if (mode == HeaderMode.LEGACY || mode == HeaderMode.BOTH) {
            out.add(new Header(LEGACY_LIMIT, Long.toString(d.limit())));
            out.add(new Header(LEGACY_REMAINING, Long.toString(d.remaining())));
            out.add(new Header(LEGACY_RESET, Long.toString(ceilSeconds(d.resetMillis()))));
        }
    }

    /**
     * A policy's quoted name and {@code RateLimit-Policy} field, which depend only on its name and bucket: written
     * once per policy name and bucket rather than per response.
     */
    private record Described(String quoted, long limit, long windowSeconds, boolean concurrent, String field) {

        boolean describes(RateLimitDecision d) {
            return limit == d.limit() && windowSeconds == d.windowSeconds() && concurrent == d.concurrent();
        }
    }

    /** Policy names come from configuration; the bound only keeps an unforeseen stream of names from growing it. */
    private static final int MAX_DESCRIBED = 1024;
    private static final ConcurrentHashMap<String, Described> DESCRIBED = new ConcurrentHashMap<>();

    private static Described described(RateLimitDecision d) {
        Described known = DESCRIBED.get(d.policy());
        if (known != null && known.describes(d)) {
            return known;
        }
        String quoted = known != null ? known.quoted() : sfString(d.policy());
        Described fresh = new Described(quoted, d.limit(), d.windowSeconds(), d.concurrent(), quoted + ";q=" + d.limit()
                + (d.concurrent() ? ";qu=\"concurrent-requests\"" : ";w=" + d.windowSeconds()));
        if (known != null || DESCRIBED.size() < MAX_DESCRIBED) {
            DESCRIBED.put(d.policy(), fresh);
        }
        return fresh;
    }

    /**
     * An RFC 9651 sf-string: printable ASCII with {@code "} and {@code \} escaped. Policy names come from
     * configuration, but a character outside that range would make the whole field invalid, so it is
     * replaced by {@code ?} rather than written.
     */
    static String sfString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7E) {
                out.append('?');
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }
}
