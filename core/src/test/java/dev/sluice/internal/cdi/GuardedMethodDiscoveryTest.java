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
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interceptors find a method's model through the bean the container gives them: the annotations as the
 * container sees them (including those another extension added) and the bean class it deployed, whatever its
 * name looks like.
 */
@EnableWeld
class GuardedMethodDiscoveryTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Jobs.class, Nightly$$Report.class, Archive.class)
                    .addExtension(new LockingExtension())
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of()))))
            .build();

    @Inject
    Jobs jobs;

    @Inject
    Nightly$$Report report;

    @Inject
    Archive archive;

    @Inject
    Sluice sluice;

    @Test
    void aLockAddedByAnotherExtensionIsTaken() throws Exception {
        assertThat(jobs.run("7")).isEqualTo("7");
        assertRefusedWhileHeld("job:7", () -> jobs.run("7"));
    }

    @Test
    void anInheritedMethodIsNamedAfterTheBeanClassEvenWhenItsNameHoldsDollarSigns() throws Exception {
        assertThat(report.run()).isEqualTo("ran");
        assertRefusedWhileHeld("Nightly$$Report.run", report::run);
    }

    @Test
    void aClassLevelLockGuardsEveryMethodAndAMethodsOwnAnnotationWins() throws Exception {
        assertRefusedWhileHeld("Archive.store", archive::store);
        assertRefusedWhileHeld("purge-all", archive::purge);
        assertThat(archive.purge()).isEqualTo("purged");
    }

    private void assertRefusedWhileHeld(String key, Runnable call) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle held = pool.submit(() -> sluice.lock(key).acquire(Duration.ofSeconds(30), Duration.ZERO)).get();
        try {
            assertThatThrownBy(call::run)
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> assertThat(e.key()).isEqualTo(key));
        } finally {
            pool.submit(held::close).get();
            pool.shutdown();
        }
    }
}
