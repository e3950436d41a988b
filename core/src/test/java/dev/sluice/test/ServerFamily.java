package dev.sluice.test;

import java.util.Locale;

/**
 * Which server the Redis fixture starts, chosen by the environment variable {@value #VARIABLE}: {@code redis}
 * (the default, {@code redis-server}) or {@code valkey} ({@code valkey-server}). Both speak the same protocol and
 * take the same command-line options, so every fixture ({@link RedisServer}, {@link RedisProcess},
 * {@link RedisCluster}, sentinels) works with either. core's build runs the Redis suites a second time with
 * {@code valkey} (docs/testing.md).
 *
 * <p>Immutable.
 */
public enum ServerFamily {

    REDIS("Redis", "redis-server", "install redis-server (apt-get install redis-server) or set "
            + RedisServer.URI_VARIABLE + " or start Docker"),
    VALKEY("Valkey", "valkey-server", "install valkey-server 8+ (Debian 12: apt-get install valkey-server from "
            + "bookworm-backports, as .ci/run does), or run the Redis suites only (" + ServerFamily.VARIABLE
            + " unset)");

    /** The environment variable that chooses the family. */
    public static final String VARIABLE = "SLUICE_TEST_SERVER";

    private static final ServerFamily CHOSEN = parse(System.getenv(VARIABLE));

    private final String displayName;
    private final String binary;
    private final String howToGetOne;

    ServerFamily(String displayName, String binary, String howToGetOne) {
        this.displayName = displayName;
        this.binary = binary;
        this.howToGetOne = howToGetOne;
    }

    /** The family this JVM's fixtures start. */
    public static ServerFamily chosen() {
        return CHOSEN;
    }

    /** {@code null} or blank means Redis; anything but {@code redis} or {@code valkey} is refused. */
    static ServerFamily parse(String value) {
        if (value == null || value.isBlank()) {
            return REDIS;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(VARIABLE + "=" + value + " is not a server the test fixture can start; "
                    + "expected redis or valkey", e);
        }
    }

    /** {@code Redis} or {@code Valkey}, for messages. */
    public String displayName() {
        return displayName;
    }

    /** The server command looked up on the {@code PATH}. */
    public String binary() {
        return binary;
    }

    /** What to do when the binary is missing. */
    public String howToGetOne() {
        return howToGetOne;
    }
}
