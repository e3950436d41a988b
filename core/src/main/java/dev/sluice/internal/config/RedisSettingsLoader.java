package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and validates {@code sluice.redis.*} into {@link RedisSettings}. No message ever contains a
 * password: URIs are shown with their credentials masked and {@code sluice.redis.password} is never
 * shown. Stateless and thread-safe.
 */
final class RedisSettingsLoader {

    static final String URI = "sluice.redis.uri";
    static final String SENTINELS = "sluice.redis.sentinels";
    static final String MASTER_NAME = "sluice.redis.master-name";
    static final String CLUSTER_NODES = "sluice.redis.cluster-nodes";
    static final String REDLOCK_NODES = "sluice.redis.redlock-nodes";
    static final String USER = "sluice.redis.user";
    static final String PASSWORD = "sluice.redis.password";
    static final String TIMEOUT = "sluice.redis.timeout";
    static final String POOL_MAX_TOTAL = "sluice.redis.pool.max-total";
    static final String POOL_MAX_IDLE = "sluice.redis.pool.max-idle";
    static final String POOL_MIN_IDLE = "sluice.redis.pool.min-idle";
    static final String POOL_MAX_WAIT = "sluice.redis.pool.max-wait";
    static final String PIPELINING = "sluice.redis.pipelining";
    static final String TLS = "sluice.redis.tls";

    static final List<String> KEYS = List.of(URI, SENTINELS, MASTER_NAME, CLUSTER_NODES, REDLOCK_NODES, USER,
            PASSWORD, TIMEOUT, POOL_MAX_TOTAL, POOL_MAX_IDLE, POOL_MIN_IDLE, POOL_MAX_WAIT, PIPELINING, TLS);

    /** Fewest Redlock masters that survive the loss of one. */
    static final int MIN_REDLOCK_NODES = 3;

    private static final String NODES_EXPECTED = "a comma-separated list of host:port such as"
            + " redis-1:26379,redis-2:26379";

    private RedisSettingsLoader() {
    }

    static RedisSettings load(ConfigSource source) {
        Optional<String> uriText = source.get(URI);
        List<RedisAddress> sentinels = nodes(source, SENTINELS);
        List<RedisAddress> clusterNodes = nodes(source, CLUSTER_NODES);
        Optional<String> masterName = source.get(MASTER_NAME);

        exclusive(source, URI, SENTINELS, uriText.isPresent(), !sentinels.isEmpty());
        exclusive(source, URI, CLUSTER_NODES, uriText.isPresent(), !clusterNodes.isEmpty());
        exclusive(source, SENTINELS, CLUSTER_NODES, !sentinels.isEmpty(), !clusterNodes.isEmpty());
        if (!sentinels.isEmpty() && masterName.isEmpty()) {
            throw ConfigProblems.absent(MASTER_NAME, " but " + SENTINELS + " is \"" + source.get(SENTINELS).orElseThrow()
                    + "\"", "the name of the master the Sentinels monitor, such as mymaster");
        }
        if (sentinels.isEmpty() && masterName.isPresent()) {
            throw ConfigProblems.invalid(MASTER_NAME, masterName.get(), "is set but " + SENTINELS + " is not",
                    "both or neither");
        }

        Optional<Boolean> tlsKey = source.get(TLS).map(v -> Values.bool(TLS, v.trim()));
        Optional<RedisUri> uri = uriText.map(text -> RedisUri.parse(URI, text));
        if (uri.isPresent() && uri.get().tls() && tlsKey.equals(Optional.of(false))) {
            throw tlsContradiction(URI, RedisUri.redact(uriText.get()));
        }
        boolean tls = tlsKey.orElse(uri.map(RedisUri::tls).orElse(false));
        uri = uri.map(u -> u.withTls(tls));
        Optional<String> user = source.get(USER);
        Optional<String> password = source.get(PASSWORD);
        if (uri.isPresent() && uri.get().user().isPresent() && user.isPresent()) {
            throw twice(USER);
        }
        if (uri.isPresent() && uri.get().password().isPresent() && password.isPresent()) {
            throw twice(PASSWORD);
        }
        if (uri.isPresent() && uri.get().user().isPresent()) {
            user = uri.get().user();
        }
        if (uri.isPresent() && uri.get().password().isPresent()) {
            password = uri.get().password();
        }

        List<RedisUri> redlock = redlockNodes(source, tlsKey);
        if (!redlock.isEmpty() && uriText.isEmpty() && sentinels.isEmpty() && clusterNodes.isEmpty()) {
            throw ConfigProblems.invalid(REDLOCK_NODES, String.join(",",
                    Values.list(source.get(REDLOCK_NODES).orElseThrow()).stream().map(RedisUri::redact).toList()),
                    "is set but no Redis is (" + URI + ", " + SENTINELS + " or " + CLUSTER_NODES + "), so rate limits"
                    + " and semaphores would stay in this JVM", "one of those beside it");
        }

        Duration timeout = source.get(TIMEOUT).map(v -> millis(TIMEOUT, v)).orElse(RedisSettings.DEFAULT_TIMEOUT);
        RedisSettings.Pool pool = pool(source);
        boolean pipelining = source.get(PIPELINING).map(v -> Values.bool(PIPELINING, v.trim())).orElse(true);
        // Each Redlock master: its own credentials and database, the application's timeout, pool and pipelining.
        List<RedisSettings> masters = redlock.stream().map(node -> new RedisSettings(Optional.of(node.address()),
                List.<RedisAddress>of(), Optional.empty(), List.of(), List.of(), node.user(), node.password(),
                node.database(), node.tls(), timeout, pool, pipelining)).toList();
        return new RedisSettings(uri.map(RedisUri::address), sentinels, masterName, clusterNodes, masters, user,
                password, uri.map(RedisUri::database).orElse(0), tls, timeout, pool, pipelining);
    }

    private static RedisSettings.Pool pool(ConfigSource source) {
        RedisSettings.Pool d = RedisSettings.Pool.DEFAULT;
        int maxTotal = source.get(POOL_MAX_TOTAL).map(v -> Values.wholeInt(POOL_MAX_TOTAL, v, 1)).orElse(d.maxTotal());
        int maxIdle = source.get(POOL_MAX_IDLE).map(v -> Values.wholeInt(POOL_MAX_IDLE, v, 0)).orElse(d.maxIdle());
        int minIdle = source.get(POOL_MIN_IDLE).map(v -> Values.wholeInt(POOL_MIN_IDLE, v, 0)).orElse(d.minIdle());
        Duration maxWait = source.get(POOL_MAX_WAIT).map(v -> millis(POOL_MAX_WAIT, v)).orElse(d.maxWait());
        if (minIdle > maxIdle) {
            throw ConfigProblems.conflict(POOL_MIN_IDLE, source.get(POOL_MIN_IDLE).orElseThrow(), "is more than",
                    POOL_MAX_IDLE, Integer.toString(maxIdle), "", "a whole number from 0 to " + maxIdle);
        }
        return new RedisSettings.Pool(maxTotal, maxIdle, minIdle, maxWait);
    }

    /**
     * A positive duration that Jedis can hold: it counts timeouts in whole milliseconds in an {@code int},
     * and reads 0 as "wait forever", so sub-millisecond values must not round down to it.
     */
    private static Duration millis(String key, String value) {
        Duration d = Durations.parse(key, value);
        if (d.compareTo(Duration.ofMillis(1)) < 0 || d.toMillis() > Integer.MAX_VALUE) {
            throw ConfigProblems.invalid(key, value, "a duration from 1ms to 24d such as 500ms or 2s");
        }
        return d;
    }

    private static List<RedisAddress> nodes(ConfigSource source, String key) {
        Optional<String> value = source.get(key);
        if (value.isEmpty()) {
            return List.of();
        }
        Set<RedisAddress> nodes = new LinkedHashSet<>();
        for (String item : Values.list(value.get())) {
            if (!nodes.add(RedisUri.hostAndPort(key, value.get(), item, false, NODES_EXPECTED))) {
                throw ConfigProblems.invalid(key, value.get(), NODES_EXPECTED + ", each node once");
            }
        }
        if (nodes.isEmpty()) {
            throw ConfigProblems.invalid(key, value.get(), NODES_EXPECTED);
        }
        return List.copyOf(nodes);
    }

    /**
     * Each master with its own credentials (each may have its own), validated like sluice.redis.uri. With
     * {@code sluice.redis.tls=true} every master is reached over TLS; with {@code false} a {@code rediss://} master
     * contradicts it.
     */
    private static List<RedisUri> redlockNodes(ConfigSource source, Optional<Boolean> tls) {
        Optional<String> value = source.get(REDLOCK_NODES);
        if (value.isEmpty()) {
            return List.of();
        }
        String shown = String.join(",", Values.list(value.get()).stream().map(RedisUri::redact).toList());
        List<RedisUri> masters = new ArrayList<>();
        Set<RedisAddress> endpoints = new LinkedHashSet<>();
        for (String item : Values.list(value.get())) {
            RedisUri node = RedisUri.parse(REDLOCK_NODES, item);
            if (!endpoints.add(node.address())) {
                // Two entries for one server would let a single failure count twice towards the quorum.
                throw ConfigProblems.invalid(REDLOCK_NODES, shown, "independent masters, each host:port"
                        + " once, such as redis://a:6379,redis://b:6379,redis://c:6379");
            }
            if (node.tls() && tls.equals(Optional.of(false))) {
                throw tlsContradiction(REDLOCK_NODES, shown);
            }
            masters.add(node.withTls(node.tls() || tls.orElse(false)));
        }
        if (masters.size() < MIN_REDLOCK_NODES) {
            throw ConfigProblems.invalid(REDLOCK_NODES, shown, "names " + masters.size() + " master(s)", "at least "
                    + MIN_REDLOCK_NODES + " independent masters such as redis://a:6379,redis://b:6379,redis://c:6379"
                    + " (a quorum over fewer survives no failure; use " + URI + " for a single server)");
        }
        return List.copyOf(masters);
    }

    private static void exclusive(ConfigSource source, String a, String b, boolean hasA, boolean hasB) {
        if (hasA && hasB) {
            throw ConfigProblems.conflict(b, RedisUri.redact(source.get(b).orElseThrow()), "is set together with", a,
                    RedisUri.redact(source.get(a).orElseThrow()), "",
                    "only one of " + URI + ", " + SENTINELS + " and " + CLUSTER_NODES);
        }
    }

    /** {@code sluice.redis.tls=false} next to a {@code rediss://} address: the operator asked for both. */
    private static SluiceConfigException tlsContradiction(String key, String shown) {
        return ConfigProblems.conflict(TLS, "false", "contradicts", key, shown, ", whose rediss:// scheme asks for TLS",
                "true (or no " + TLS + ") with rediss://, or redis:// with false");
    }

    private static SluiceConfigException twice(String key) {
        String what = key.equals(PASSWORD) ? "password" : "user";
        return ConfigProblems.withoutValue(key, "a " + what + " is also given in " + URI,
                "the " + what + " in only one of them");
    }
}
