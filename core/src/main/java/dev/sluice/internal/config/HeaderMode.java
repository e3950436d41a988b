package dev.sluice.internal.config;

/** {@code sluice.headers}: which rate-limit response headers are written. */
public enum HeaderMode {
    /** {@code RateLimit-Policy} and {@code RateLimit} (IETF httpapi draft). Default. */
    IETF,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    LEGACY,
    BOTH,
    NONE
}
