package dev.sluice.internal.cdi;

import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Sluice;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @Locked} through a real CDI container (Weld), on the in-process store. */
@EnableWeld
class LockedInterceptorTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Tickets.class, Seats.class, FakeTransactionInterceptor.class)
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of(
                            "sluice.lock.Tickets.report.max-wait", "0")))))
            .build();

    @Inject
    Tickets tickets;

    @Inject
    Sluice sluice;

    @Test
    void concurrentBuyersOfOneEventNeverOverlap() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < 250; i++) {
                    tickets.buy(1, 1);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(tickets.sold(1)).isEqualTo(2000);
    }

    @Test
    void keyTemplateLocksTheEventOfTheFirstParameter() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Boolean> holder = pool.submit(() -> tickets.holdWhile(7, entered, release));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(sluice.lock("event:7").tryAcquire(Duration.ofSeconds(5))).isEmpty();
        try (LockHandle other = sluice.lock("event:8").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(other.isHeld()).isTrue();
        }
        release.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
        pool.shutdown();
    }

    @Test
    void keyTemplateRendersAParameterByName() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle held = pool.submit(() -> sluice.lock("event:9").acquire(Duration.ofSeconds(30), Duration.ZERO)).get();

        assertThatThrownBy(() -> tickets.byName(9, "ann"))
                .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> assertThat(e.key()).isEqualTo("event:9"));
        assertThat(tickets.byName(10, "bob")).isEqualTo("bob");
        pool.submit(held::close).get();
        assertThat(tickets.byName(9, "ann")).isEqualTo("ann");
        pool.shutdown();
    }

    @Test
    void sameThreadReentersTheLockThroughAnotherBean() {
        assertThat(tickets.buyWithSeat(3)).isEqualTo(1);
        assertThat(tickets.buyWithSeat(3)).isEqualTo(2);
    }

    @Test
    void lockNameDefaultsToClassAndMethodAndConfigOverridesTheMaxWait() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle held = pool.submit(() -> sluice.lock("Tickets.report").acquire(Duration.ofSeconds(30), Duration.ZERO)).get();

        // The annotation says 30s; sluice.lock.Tickets.report.max-wait=0 makes it try once.
        assertThatThrownBy(tickets::report).isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
            assertThat(e.key()).isEqualTo("Tickets.report");
            assertThat(e.waited()).isLessThan(Duration.ofSeconds(30));
        });
        pool.submit(held::close).get();
        pool.shutdown();
    }

    @Test
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits() {
        FakeTransactionInterceptor.OBSERVED.clear();
        tickets.commitUnderLock("o-1");
        assertThat(FakeTransactionInterceptor.OBSERVED).containsExactly(
                "begin, lock free to others: false", "commit, lock free to others: false");
        assertThat(sluice.lock("commit:o-1").tryAcquire(Duration.ofSeconds(5))).isPresent().get()
                .satisfies(LockHandle::close);
    }
}
