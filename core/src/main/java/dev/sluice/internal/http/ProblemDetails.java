package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;

import java.util.ArrayList;
import java.util.List;

/**
 * An RFC 9457 {@code application/problem+json} body, written by hand so that core needs no JSON library.
 *
 * <p>A 429 uses the problem type {@value #QUOTA_EXCEEDED} and its {@code violated-policies} member from
 * draft-ietf-httpapi-ratelimit-headers-11, and adds {@code policy} (the denying policy named in the
 * headers) and {@code retryAfter} (seconds, as in {@code Retry-After}; absent when the request can never
 * pass). A 503 (store unreachable with {@code sluice.on-redis-failure=deny}) uses {@code about:blank} with
 * the status phrase as title, as RFC 9457 section 4.2.1 asks, plus {@code retryAfter}. No request data
 * (keys, addresses, header values) ever appears in a body. Immutable and thread-safe.
 *
 * @param type       problem type URI
 * @param title      short summary, the same for every occurrence of the type
 * @param status     HTTP status code
 * @param detail     human-readable explanation of this occurrence
 * @param policy     the policy named in the headers, or {@code null}
 * @param violated   every policy that denied the request (may be empty)
 * @param retryAfter seconds until a retry can succeed, or a negative value for none
 */
public record ProblemDetails(String type, String title, int status, String detail, String policy,
                             List<String> violated, long retryAfter) {

    /** The media type of the body. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /** Problem type of a request over quota (draft-ietf-httpapi-ratelimit-headers-11, section 5.1). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    public ProblemDetails {
        violated = List.copyOf(violated);
    }

    /** The body of a 429 for these decisions (at least one denied). */
    public static ProblemDetails tooManyRequests(List<RateLimitDecision> decisions) {
        RateLimitDecision denying = RateLimitHeaders.denying(decisions);
        List<String> violated = new ArrayList<>();
        for (RateLimitDecision d : decisions) {
            if (!d.allowed()) {
                violated.add(d.policy());
            }
        }
        long retryAfter = RateLimitHeaders.retryAfterSeconds(decisions);
        String what = denying.concurrent()
                ? "Concurrency limit '" + denying.policy() + "' reached (" + denying.limit() + " requests in flight)"
                : "Rate limit '" + denying.policy() + "' exceeded";
        String detail = retryAfter > 0
                ? what + "; retry after " + retryAfter
                        + (retryAfter == 1 ? " second." : " seconds.")
                : "Rate limit '" + denying.policy() + "' exceeded; this request costs more than the limit"
                        + " allows and can never be admitted.";
        return new ProblemDetails(QUOTA_EXCEEDED, "Quota Exceeded", 429, detail, denying.policy(), violated,
                retryAfter > 0 ? retryAfter : -1);
    }

    /** The body of a 503 answered because the rate-limit store cannot be reached. */
    public static ProblemDetails serviceUnavailable(long retryAfterSeconds) {
        return unavailable("The store that rate limits are checked against cannot be reached", retryAfterSeconds);
    }

    /**
     * The body of a 503 for a lock or permit not acquired within its wait. It names neither the lock key nor the
     * semaphore, which may carry request data.
     */
    public static ProblemDetails busy(long retryAfterSeconds) {
        return unavailable("A resource this request needs is busy", retryAfterSeconds);
    }

    /** The body of a 503 for a lock or permit not acquired because its store cannot be reached. */
    public static ProblemDetails lockStoreUnreachable(long retryAfterSeconds) {
        return unavailable("The store that coordinates a resource this request needs cannot be reached",
                retryAfterSeconds);
    }

    private static ProblemDetails unavailable(String what, long retryAfterSeconds) {
        return new ProblemDetails("about:blank", "Service Unavailable", 503, what + "; retry after "
                + retryAfterSeconds + (retryAfterSeconds == 1 ? " second." : " seconds."), null, List.of(),
                retryAfterSeconds);
    }

    /**
     * The body of a 500 for a lock or permit lost while its holder ran: the work may have overlapped with
     * another holder's, which is the server's problem, not the client's; neither key nor name is told.
     */
    public static ProblemDetails lost() {
        return internalError("The request could not be completed safely: a lock or permit it held was lost while "
                + "it ran.");
    }

    /** The body of a 500 for any other Sluice exception: no internals are told. */
    public static ProblemDetails internalError() {
        return internalError("The request could not be completed.");
    }

    private static ProblemDetails internalError(String detail) {
        return new ProblemDetails("about:blank", "Internal Server Error", 500, detail, null, List.of(), -1);
    }

    /** The JSON text. */
    public String toJson() {
        StringBuilder out = new StringBuilder(256).append('{');
        member(out, "type").append(quote(type)).append(',');
        member(out, "title").append(quote(title)).append(',');
        member(out, "status").append(status).append(',');
        member(out, "detail").append(quote(detail));
        if (policy != null) {
            member(out.append(','), "policy").append(quote(policy));
        }
        if (!violated.isEmpty()) {
            member(out.append(','), "violated-policies").append('[');
            for (int i = 0; i < violated.size(); i++) {
                out.append(i == 0 ? "" : ",").append(quote(violated.get(i)));
            }
            out.append(']');
        }
        if (retryAfter >= 0) {
            member(out.append(','), "retryAfter").append(retryAfter);
        }
        return out.append('}').toString();
    }

    private static StringBuilder member(StringBuilder out, String name) {
        return out.append('"').append(name).append("\":");
    }

    /**
     * A JSON string literal (RFC 8259 section 7): quotation mark, reverse solidus and control characters
     * escaped; also DEL, U+2028/U+2029 (line terminators to JavaScript) and unpaired surrogates, which
     * would otherwise not survive encoding to UTF-8.
     */
    static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < value.length()
                            && Character.isLowSurrogate(value.charAt(i + 1));
                    if (pairedHigh) {
                        out.append(c).append(value.charAt(++i));
                    } else if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029' || Character.isSurrogate(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
