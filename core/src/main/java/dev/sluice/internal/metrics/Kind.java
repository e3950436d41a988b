package dev.sluice.internal.metrics;

/**
 * What a metric name names: a rate-limit policy, a lock or a semaphore. Carries the spellings the exporters
 * use: the JMX {@code type} key and the tag key of MicroProfile Metrics and Micrometer.
 */
public enum Kind {
    RATE_LIMIT("RateLimit", "policy", "sluice.ratelimit"),
    LOCK("Lock", "lock", "sluice.lock"),
    SEMAPHORE("Semaphore", "semaphore", "sluice.semaphore");

    private final String jmxType;
    private final String tag;
    private final String prefix;

    Kind(String jmxType, String tag, String prefix) {
        this.jmxType = jmxType;
        this.tag = tag;
        this.prefix = prefix;
    }

    /** {@code type=} of the MBean's ObjectName. */
    public String jmxType() {
        return jmxType;
    }

    /** The tag that carries the name in MicroProfile Metrics and Micrometer. */
    public String tag() {
        return tag;
    }

    /** The metric name prefix in MicroProfile Metrics and Micrometer, e.g. {@code sluice.lock}. */
    public String prefix() {
        return prefix;
    }
}
