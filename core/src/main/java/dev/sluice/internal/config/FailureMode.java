package dev.sluice.internal.config;

/** {@code sluice.on-redis-failure}: what rate limits do when Redis cannot be reached. */
public enum FailureMode {
    /** Fail open: admit the request. Default. */
    ALLOW,
    /** Fail closed: refuse the request (the filters answer 503). */
    DENY
}
