package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.RedisSettings;

import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;

import javax.net.ssl.SSLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads Jedis failures: which of them are the operator's configuration at fault (and must fail the deployment),
 * and a short password-free description of the others for a log line. Stateless.
 */
public final class RedisFailures {

    private static final String REDACTED = "****";

    private RedisFailures() {
    }

    /**
     * The configuration error {@code failure} reveals, if any: credentials Redis rejects ({@code WRONGPASS},
     * {@code NOAUTH}), an ACL user lacking a permission ({@code NOPERM}), a password given to a Redis without one,
     * a failed TLS handshake (untrusted certificate, wrong host name, plain-text port), or a master name the
     * sentinels do not monitor. Jedis hides the interesting exception among causes and
     * suppressed exceptions (cluster and sentinel start-up try every node), so all of them are searched.
     *
     * @param where the password-free address of the server that answered, for the message
     */
    static Optional<SluiceConfigException> asConfigProblem(Throwable failure, RedisSettings settings, String where) {
        for (Throwable t : chain(failure)) {
            String message = String.valueOf(t.getMessage());
            String user = settings.user().map(u -> "user \"" + u + "\"").orElse("the default user");
            SluiceConfigException problem = null;
            if (hasCode(t, "WRONGPASS")) {
                problem = ConfigProblems.fromRedis("sluice.redis.password", "Redis at " + where
                        + " rejected the password of " + user + " (WRONGPASS: wrong password, unknown or disabled"
                        + " user)", "the password of an enabled user, set in sluice.redis.user and"
                        + " sluice.redis.password", failure);
            } else if (hasCode(t, "NOAUTH")) {
                problem = ConfigProblems.fromRedis("sluice.redis.password", "Redis at " + where
                        + " requires a password (NOAUTH) and none is configured", "sluice.redis.password, or the"
                        + " password in sluice.redis.uri as redis://user:password@host:port", failure);
            } else if (hasCode(t, "ERR") && message.contains("without any password configured")) {
                // The one reply known only by its text: AUTH with a password a server without one refuses, code ERR.
                problem = ConfigProblems.fromRedis("sluice.redis.password", "Redis at " + where
                        + " has no password configured, but one is set", "no sluice.redis.password, or requirepass"
                        + " configured on the server", failure);
            } else if (hasCode(t, "NOPERM") || t instanceof JedisAccessControlException) {
                problem = ConfigProblems.fromRedis("sluice.redis.user", "Redis at " + where + " does not let " + user
                        + " run the commands Sluice needs (" + redact(message, settings) + ")", "a user allowed"
                        + " them, such as the minimal ACL user of the operations guide", failure);
            } else if (t instanceof SSLException) {
                String key = addressKey(settings);
                problem = ConfigProblems.fromRedis(key, "the TLS handshake with " + where + " failed ("
                        + redact(message, settings) + ")", "a server that speaks TLS, with a certificate trusted by"
                        + " the JVM's default truststore (javax.net.ssl.trustStore) that names the host it is"
                        + " reached by", failure);
            } else if (message.contains("seems to be not monitored")) {
                problem = ConfigProblems.invalid("sluice.redis.master-name", settings.masterName().orElse(null),
                        "the name of a master that the sentinels " + settings.sentinels() + " monitor");
                problem.initCause(failure);
            }
            if (problem != null) {
                return Optional.of(problem);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code failure} is what a flood produces on a healthy Redis rather than a sign that Redis is
     * down: the local connection pool exhausted (Jedis' "Could not get a resource from the pool", or a
     * {@code NoSuchElementException} from commons-pool), or Redis refusing a write for want of memory
     * ({@code OOM}, by its code). The circuit breaker does not count these.
     */
    public static boolean isOverload(Throwable failure) {
        if (isPoolExhausted(failure)) {
            return true;
        }
        for (Throwable t : chain(failure)) {
            if (hasCode(t, "OOM")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code failure} is the local connection pool exhausted (Jedis' "Could not get a resource from the
     * pool", or a {@code NoSuchElementException} from commons-pool): the call never left this node.
     */
    public static boolean isPoolExhausted(Throwable failure) {
        for (Throwable t : chain(failure)) {
            if (t instanceof java.util.NoSuchElementException
                    || String.valueOf(t.getMessage()).startsWith("Could not get a resource")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The code of a Redis error reply: its first word ({@code NOSCRIPT}, {@code NOPERM}, {@code WRONGPASS},
     * {@code OOM}, {@code ERR}, ...); empty for anything that is not a reply of the server. Errors are told apart by
     * their code only: the text after it differs between Redis versions and Valkey (Valkey's {@code NOSCRIPT}
     * reply is shorter than Redis's, for one).
     */
    static Optional<String> errorCode(Throwable t) {
        if (!(t instanceof JedisDataException) || t.getMessage() == null) {
            return Optional.empty();
        }
        String message = t.getMessage();
        int space = message.indexOf(' ');
        String first = space < 0 ? message : message.substring(0, space);
        boolean code = !first.isEmpty() && first.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '_'
                || (c >= '0' && c <= '9'));
        return code ? Optional.of(first) : Optional.empty();
    }

    private static boolean hasCode(Throwable t, String code) {
        return errorCode(t).filter(code::equals).isPresent();
    }

    /** The key holding the addresses Sluice connects to in {@code settings}' mode. */
    private static String addressKey(RedisSettings settings) {
        return addressKey(settings.mode());
    }

    /** The key holding the addresses Sluice connects to in {@code mode}. */
    static String addressKey(RedisSettings.Mode mode) {
        switch (mode) {
            case SENTINEL:
                return "sluice.redis.sentinels";
            case CLUSTER:
                return "sluice.redis.cluster-nodes";
            default:
                return "sluice.redis.uri";
        }
    }

    /** One line for a log record: the failure and its root causes, with the password (if echoed) masked. */
    public static String describe(Throwable failure, RedisSettings settings) {
        StringBuilder text = new StringBuilder();
        for (Throwable t : chain(failure)) {
            if (t.getMessage() == null) {
                continue;
            }
            if (text.length() > 0) {
                text.append("; ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return redact(text.toString(), settings);
    }

    /** Redis never echoes a password, but a proxy or a future version might; a log is not the place to find out. */
    static String redact(String text, RedisSettings settings) {
        Optional<String> password = settings.password().filter(p -> !p.isEmpty());
        return password.isPresent() ? text.replace(password.get(), REDACTED) : text;
    }

    /** The failure, its causes and suppressed exceptions, depth-first, each once. */
    private static List<Throwable> chain(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>();
        List<Throwable> ordered = new ArrayList<>();
        pending.push(failure);
        while (!pending.isEmpty()) {
            Throwable t = pending.pop();
            if (!seen.add(t)) {
                continue;
            }
            ordered.add(t);
            Throwable[] suppressed = t.getSuppressed();
            for (int i = suppressed.length - 1; i >= 0; i--) {
                pending.push(suppressed[i]);
            }
            if (t.getCause() != null) {
                pending.push(t.getCause());
            }
        }
        return ordered;
    }
}
