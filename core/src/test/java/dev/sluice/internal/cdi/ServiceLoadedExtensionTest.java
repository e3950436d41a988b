package dev.sluice.internal.cdi;

import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Inject;

import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Locked;
import dev.sluice.Sluice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test set-up docs/getting-started.md gives applications: Weld with the bean classes listed and the
 * extensions found by {@link ServiceLoader} added (Weld SE loads none itself when discovery is off), and
 * no configuration, so the in-process store. Sluice's extension is then found without naming it.
 */
@EnableWeld
class ServiceLoadedExtensionTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(container()).build();

    @Inject
    Events events;

    @Inject
    Sluice sluice;

    static Weld container() {
        Weld weld = WeldInitiator.createWeld().addBeanClasses(Events.class);
        ServiceLoader.load(Extension.class).forEach(weld::addExtension);
        return weld;
    }

    @Test
    void aListedBeanIsGuardedByTheServiceLoadedExtension() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            LockHandle held = other.submit(() -> sluice.lock("event:42").acquire(
                    java.time.Duration.ofSeconds(30), java.time.Duration.ZERO)).get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> events.sell(42)).isInstanceOf(LockNotAcquiredException.class);
            other.submit(held::close).get(10, TimeUnit.SECONDS);
            assertThat(events.sell(42)).isEqualTo("sold 42");
        } finally {
            other.shutdownNow();
        }
    }

    @ApplicationScoped
    public static class Events {
        @Locked(key = "event:{0}", maxWait = "0")
        public String sell(long eventId) {
            return "sold " + eventId;
        }
    }
}
