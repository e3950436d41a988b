package dev.sluice.internal.limit;

import dev.sluice.internal.lease.Watchdog;

/**
 * The watchdog of engines built without a runtime (tests, benchmarks): daemon threads of its own, made on first
 * use and never closed. A runtime hands its engine a watchdog it closes at undeploy.
 */
final class OwnWatchdog {

    private static final class Holder {
        static final Watchdog WATCHDOG = Watchdog.ownScheduler();
    }

    private OwnWatchdog() {
    }

    static Watchdog get() {
        return Holder.WATCHDOG;
    }
}
