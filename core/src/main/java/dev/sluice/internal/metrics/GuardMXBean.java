package dev.sluice.internal.metrics;

/**
 * One lock name or semaphore name of one application in JMX:
 * {@code dev.sluice:type=Lock,app=<app>,name=<lock>} or {@code dev.sluice:type=Semaphore,app=<app>,name=<semaphore>}.
 * Counts and totals run from the application's start; maxima are the longest seen since then.
 * Implementations are thread-safe.
 */
public interface GuardMXBean {

    /** Acquisitions (reentrant ones of a lock already held by the thread excluded). */
    long getAcquired();

    /** Total time acquisitions waited, in milliseconds. */
    double getWaitTotalMillis();

    /** Longest wait of one acquisition, in milliseconds. */
    double getWaitMaxMillis();

    /** Releases (each acquisition is released once). */
    long getReleased();

    /** Total time held, in milliseconds. */
    double getHoldTotalMillis();

    /** Longest single hold, in milliseconds. */
    double getHoldMaxMillis();

    /** Acquisitions that gave up after their maximum wait. */
    long getTimeouts();

    /** Holds whose lease was found lost (expired or taken over) before release. */
    long getLeasesLost();

    /** Lease renewals by the watchdog. */
    long getRenewals();

    /** Acquisitions that failed because Redis could not be reached. */
    long getRedisErrors();
}
