package dev.sluice.internal.cdi;

import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @Bounded} through a real CDI container (Weld), on the in-process store. */
@EnableWeld
class BoundedInterceptorTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(PdfRenderer.class)
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of(
                            "sluice.semaphore.pdf.permits", "3",
                            "sluice.semaphore.pdf.max-wait", "0")))))
            .build();

    @Inject
    PdfRenderer renderer;

    @Inject
    Sluice sluice;

    @Test
    void configuredPermitsLetThatManyCallersInTogether() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CyclicBarrier allInside = new CyclicBarrier(4);
        CyclicBarrier leave = new CyclicBarrier(4);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(pool.submit(() -> {
                renderer.renderTogether(allInside, leave);
                return null;
            }));
        }
        // The annotation declares one permit: this barrier opens only because config allows three.
        allInside.await(10, TimeUnit.SECONDS);
        assertThat(sluice.semaphore("pdf", 1).permits()).isEqualTo(3);
        assertThat(sluice.semaphore("pdf", 1).tryAcquire(Duration.ofSeconds(30))).isEmpty();
        leave.await(10, TimeUnit.SECONDS);
        for (Future<?> f : calls) {
            f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        sluice.semaphore("pdf", 1).tryAcquire(Duration.ofSeconds(30)).orElseThrow().close();
    }

    @Test
    void callerBeyondThePermitsDoesNotRunAndLearnsTheName() throws Exception {
        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(sluice.semaphore("pdf", 3).acquire(Duration.ofSeconds(30), Duration.ZERO));
        }
        CyclicBarrier neverReached = new CyclicBarrier(2);
        assertThatThrownBy(() -> renderer.renderTogether(neverReached, neverReached))
                .isInstanceOfSatisfying(PermitNotAcquiredException.class, e -> assertThat(e.name()).isEqualTo("pdf"));
        assertThat(neverReached.getNumberWaiting()).isZero();
        held.forEach(Permit::close);
    }

    @Test
    void neverMorePermitHoldersThanPermitsUnderConcurrentCalls() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < 50; i++) {
                    renderer.render();
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(renderer.maxInside()).isBetween(1, 2);
    }
}
