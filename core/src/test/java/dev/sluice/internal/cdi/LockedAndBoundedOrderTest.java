package dev.sluice.internal.cdi;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.Sluice;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a method with both annotations the lock is taken first: a caller waiting for a busy key holds no permit
 * meanwhile, so it does not keep callers of other keys out of the semaphore.
 */
@EnableWeld
class LockedAndBoundedOrderTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Reports.class)
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of()))))
            .build();

    @Inject
    Reports reports;

    @Inject
    Sluice sluice;

    @Test
    void aCallerWaitingForABusyKeyHoldsNoPermit() throws Exception {
        AtomicReference<Thread> caller = new AtomicReference<>();
        CompletableFuture<String> built;
        try (LockHandle busy = sluice.lock("report:42").acquire(Duration.ofSeconds(30), Duration.ZERO)) {
            built = CompletableFuture.supplyAsync(() -> {
                caller.set(Thread.currentThread());
                return reports.build("42");
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> caller.get() != null
                    && caller.get().getState() != Thread.State.RUNNABLE);

            Optional<Permit> permit = sluice.semaphore("reports", 1).tryAcquire(Duration.ofSeconds(30));
            assertThat(permit).as("the only permit is free while the caller waits for the lock").isPresent();
            permit.get().close();
        }
        assertThat(built.get(20, TimeUnit.SECONDS)).isEqualTo("report of 42");
    }
}
