package dev.sluice.internal.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where and how to reach Redis ({@code sluice.redis.*}). Immutable. {@link #toString()} never shows the
 * password.
 *
 * @param address      the server of {@code sluice.redis.uri} (its credentials are split into user/password, its
 *                     database and scheme into database/tls), empty when Sentinel, Cluster or the in-process store
 *                     is used
 * @param sentinels    Sentinel addresses; non-empty means Sentinel mode
 * @param masterName   Sentinel master name, required with sentinels
 * @param clusterNodes Cluster seed nodes; non-empty means Cluster mode
 * @param redlockNodes independent masters for Redlock locks, each a standalone server with its own credentials,
 *                     database and TLS and this application's timeout, pool and pipelining; empty = ordinary
 *                     locks
 * @param user         ACL user, may be empty
 * @param password     password, may be empty; never logged
 * @param database     database index (standalone/Sentinel), 0 by default
 * @param tls          whether every node is reached over TLS: sentinels, masters, cluster nodes
 *                     ({@code sluice.redis.tls}; a {@code rediss://} URI implies it)
 * @param timeout      socket and command timeout
 * @param pool         connection pool settings
 * @param pipelining   whether rate-limit decisions, and lock and semaphore calls, made at the same time share one
 *                     pipeline ({@code sluice.redis.pipelining}, {@code true} by default; standalone and Sentinel)
 */
public record RedisSettings(
        Optional<RedisAddress> address,
        List<RedisAddress> sentinels,
        Optional<String> masterName,
        List<RedisAddress> clusterNodes,
        List<RedisSettings> redlockNodes,
        Optional<String> user,
        Optional<String> password,
        int database,
        boolean tls,
        Duration timeout,
        Pool pool,
        boolean pipelining) {

    /** Pool settings: {@code sluice.redis.pool.*}. */
    public record Pool(int maxTotal, int maxIdle, int minIdle, Duration maxWait) {
        public static final Pool DEFAULT = new Pool(64, 64, 0, Duration.ofMillis(500));
    }

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    public enum Mode { IN_PROCESS, STANDALONE, SENTINEL, CLUSTER }

    public RedisSettings {
        sentinels = List.copyOf(sentinels);
        clusterNodes = List.copyOf(clusterNodes);
        redlockNodes = List.copyOf(redlockNodes);
    }

    /** Settings for the in-process store (nothing configured). */
    public static RedisSettings none() {
        return new RedisSettings(Optional.empty(), List.of(), Optional.empty(), List.of(), List.of(),
                Optional.empty(), Optional.empty(), 0, false, DEFAULT_TIMEOUT, Pool.DEFAULT, true);
    }

    public Mode mode() {
        if (!clusterNodes.isEmpty()) {
            return Mode.CLUSTER;
        }
        if (!sentinels.isEmpty()) {
            return Mode.SENTINEL;
        }
        return address.isPresent() ? Mode.STANDALONE : Mode.IN_PROCESS;
    }

    /** The standalone server as a URI without credentials, the port always written: {@code redis://host:6379/0}. */
    public Optional<String> uri() {
        return address.map(a -> (tls ? "rediss" : "redis") + "://" + a + "/" + database);
    }

    @Override
    public String toString() {
        return "RedisSettings[mode=" + mode() + ", uri=" + uri().orElse("-") + ", sentinels=" + sentinels
                + ", masterName=" + masterName.orElse("-") + ", clusterNodes=" + clusterNodes
                + ", redlockNodes=" + redlockNodes.size() + ", user=" + user.orElse("-")
                + ", password=" + (password.isPresent() ? "****" : "-") + ", database=" + database
                + ", tls=" + tls + ", timeout=" + timeout + ", pool=" + pool + ", pipelining=" + pipelining + "]";
    }
}
