package dev.sluice.internal.config;

/**
 * Where one Redis server (a master, a sentinel, a cluster node) listens, as the configuration named and
 * {@link RedisSettingsLoader} validated it. Immutable.
 *
 * @param host host name or IP literal; an IPv6 literal without its brackets ({@code ::1})
 * @param port 1 to 65535
 */
public record RedisAddress(String host, int port) {

    /**
     * @throws IllegalArgumentException when {@code host} is empty or {@code port} is out of range: configuration
     *                                  never gives such values, so only code can
     */
    public RedisAddress {
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("not a Redis address: host \"" + host + "\", port " + port);
        }
    }

    /** {@code host:port}, an IPv6 literal in brackets: {@code [::1]:6379}. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
