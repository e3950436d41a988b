package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.util.Optional;

/**
 * Builds every {@link SluiceConfigException}, so that each message has one shape: the key first, the value
 * quoted as written, what is wrong, then what is accepted after {@code "; expected "}:
 * <pre>sluice.limit.api.rate: "ten/s" is not a rate; expected &lt;tokens&gt;/&lt;duration&gt; such as 100/1m</pre>
 * Problems on an annotated method take SmallRye's form instead,
 * {@code Invalid @Locked.lease on com.x.Y#m(): "ten seconds" is invalid; expected ...}.
 *
 * <p>A factory returns the exception rather than throwing it, so that callers write {@code throw} and the
 * compiler sees the branch end. Stateless and thread-safe.
 */
public final class ConfigProblems {

    private ConfigProblems() {
    }

    /**
     * {@code key: "value" is invalid; expected <form>}, or {@code key: (absent) is invalid; ...} for a
     * {@code null} value.
     *
     * @param value the value as written; never a secret (mask it first, as {@code RedisUri.redact} does)
     */
    public static SluiceConfigException invalid(String key, String value, String expected) {
        return new SluiceConfigException(key, value, expected);
    }

    /** {@code key: "value" <reason>; expected <form>}, e.g. reason {@code is not a rate}. */
    public static SluiceConfigException invalid(String key, String value, String reason, String expected) {
        return of(key, key + ": " + quoted(value) + " " + reason + "; expected " + expected);
    }

    /**
     * {@code key in <where>: "value" <reason>; expected <form>}, for a key read from one named place (a
     * properties file) rather than from the merged configuration.
     */
    static SluiceConfigException invalidIn(String key, String where, String value, String reason,
            String expected) {
        return of(key, key + " in " + where + ": " + quoted(value) + " " + reason + "; expected " + expected);
    }

    /**
     * A required value that is missing: {@code key: (absent)<reason>; expected <form>}.
     *
     * @param reason why it is required, starting with its own separator, e.g. {@code " but sluice.redis.sentinels
     *               is \"a:26379\""}; may be empty
     */
    public static SluiceConfigException absent(String key, String reason, String expected) {
        return of(key, key + ": (absent)" + reason + "; expected " + expected);
    }

    /**
     * A name Sluice does not know: {@code key: unknown <what> (did you mean <nearest>?); expected <form>}. The
     * value is not shown: a misspelt key may hold a password.
     *
     * @param what    e.g. {@code key} or {@code policy attribute "rat"}
     * @param nearest the known name the typo most likely meant, if any is close
     */
    static SluiceConfigException unknown(String key, String what, Optional<String> nearest, String expected) {
        String hint = nearest.map(n -> " (did you mean " + n + "?)").orElse("");
        return of(key, key + ": unknown " + what + hint + "; expected " + expected);
    }

    /**
     * A value that cannot stand with another key's:
     * {@code key: "value" <how> otherKey "otherValue"<consequence>; expected <form>}.
     *
     * @param how         e.g. {@code is set together with}
     * @param consequence what follows from the pair, starting with its own separator; may be empty
     */
    static SluiceConfigException conflict(String key, String value, String how, String otherKey, String otherValue,
            String consequence, String expected) {
        return of(key, key + ": " + quoted(value) + " " + how + " " + otherKey + " " + quoted(otherValue)
                + consequence + "; expected " + expected);
    }

    /**
     * A problem whose value is never printed: {@code key: <reason>; expected <form>}. For a secret (a password,
     * or a value MicroProfile Config could not expand, which may hold one) and for a fault that lies in no
     * single value (a file that cannot be read).
     */
    public static SluiceConfigException withoutValue(String key, String reason, String expected) {
        return of(key, key + ": " + reason + "; expected " + expected);
    }

    /**
     * A setting that Redis refused when Sluice started: {@code key: <what Redis said>; expected <form>}, with
     * Redis's error as the cause. {@code problem} must already have any credentials masked.
     */
    public static SluiceConfigException fromRedis(String key, String problem, String expected, Throwable cause) {
        SluiceConfigException e = withoutValue(key, problem, expected);
        e.initCause(cause);
        return e;
    }

    /**
     * An invalid annotation member: {@code Invalid @Locked.lease on com.x.Y#m(): <problem>}. The key of the
     * exception is the member, e.g. {@code @Locked.lease}.
     *
     * @param where    {@code " on "} and the method, e.g. {@code " on com.x.Y#m()"}
     * @param problem  what is wrong, e.g. {@code 0 is lower than 1; expected 1 or more permits}
     */
    public static SluiceConfigException onMethod(String member, String where, String problem) {
        return of(member, "Invalid " + member + where + ": " + problem);
    }

    /**
     * An annotation member whose value failed a parser that reports as for a key (such as
     * {@link Durations#parse}, called with the member as key): its {@code member: "value" ...} becomes
     * {@code Invalid member on com.x.Y#m(): "value" ...}.
     */
    public static SluiceConfigException onMethod(String member, String where, SluiceConfigException valueProblem) {
        String message = valueProblem.getMessage();
        String problem = message.startsWith(member + ": ") ? message.substring(member.length() + 2) : message;
        return onMethod(member, where, problem);
    }

    /**
     * A problem of a configuration key found while reading an annotation that names it:
     * {@code <annotation> on com.x.Y#m(): <the key's message>}, keeping the problem's key.
     */
    public static SluiceConfigException onAnnotation(String annotation, String where, SluiceConfigException problem) {
        return of(problem.key(), annotation + " on " + where + ": " + problem.getMessage());
    }

    /**
     * A use of an annotation that the configuration cannot honour: {@code <annotation> <problem>; expected <form>},
     * e.g. {@code @RateLimited("api") appears twice on com.x.Y#m(); expected ...}.
     *
     * @param key the configuration key the annotation stands for, e.g. {@code sluice.limit.api.rate}
     */
    public static SluiceConfigException onAnnotation(String key, String annotation, String problem, String expected) {
        return of(key, annotation + " " + problem + "; expected " + expected);
    }

    private static String quoted(String value) {
        return value == null ? "(absent)" : '"' + value + '"';
    }

    private static SluiceConfigException of(String key, String message) {
        return new SluiceConfigException(key, message);
    }
}
