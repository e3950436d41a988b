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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @Locked} keys rendered from arguments, through Weld on the in-process store. */
@EnableWeld
class LockedKeysTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Orders.class)
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of()))))
            .build();

    @Inject
    Orders orders;

    @Inject
    Sluice sluice;

    @Test
    void twoEqualOrdersWithoutToStringExcludeEachOtherThroughTheirId() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < 25; i++) {
                    orders.settle(new Orders.Order(42)); // a new, equal object on every call
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(orders.maxInside()).isEqualTo(1);
        assertThat(orders.settled()).isEqualTo(100);
    }

    @Test
    void aNullArgumentFailsTheCallAndTheMethodDoesNotRun() {
        assertThatThrownBy(() -> orders.settle(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"order:{0.id}\"")
                .hasMessageContaining(Orders.class.getName() + "#settle(Order)")
                .hasMessageContaining("{0} is null");
        assertThat(orders.settled()).isZero();
        try (LockHandle lock = sluice.lock("order:null").acquire(Duration.ofSeconds(5), Duration.ZERO)) {
            assertThat(lock.isHeld()).isTrue();
        }
    }

    @Test
    void argumentsThatRunTogetherInTheTemplateLockDifferentKeys() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle held = pool.submit(() -> sluice.lock("pair:a:b%3Ac").acquire(Duration.ofSeconds(30), Duration.ZERO)).get();

        assertThat(orders.pair("a:b", "c")).isEqualTo("a:b|c");
        assertThatThrownBy(() -> orders.pair("a", "b:c"))
                .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> assertThat(e.key()).isEqualTo("pair:a:b%3Ac"));
        pool.submit(held::close).get();
        pool.shutdown();
    }
}
