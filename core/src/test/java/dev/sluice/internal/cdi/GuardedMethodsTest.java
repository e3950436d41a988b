package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import dev.sluice.SluiceConfigException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-method model the interceptors look up, built once from what the container announces. */
class GuardedMethodsTest {

    abstract static class Invoices {
        @Locked(key = "invoice:{0}", lease = "20s", maxWait = "2s")
        public void pay(long invoiceId) {
        }

        @Bounded(value = "pdf", permits = 2)
        public void render() {
        }
    }

    static class SalesInvoices extends Invoices {
    }

    static class RefundInvoices extends Invoices {
    }

    /** What a container's subclass looks like to reflection: it overrides the method it intercepts. */
    static class SalesInvoicesSubclass extends SalesInvoices {
        @Override
        public void pay(long invoiceId) {
        }
    }

    static class Unannounced {
        @Locked(maxWait = "0")
        public void sweep() {
        }
    }

    private static Method method(Class<?> type, String name) {
        for (Method m : type.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    private static final Method PAY = method(Invoices.class, "pay");
    private static final Method RENDER = method(Invoices.class, "render");

    /** The model of a deployment with two beans inheriting Invoices' guarded methods. */
    private static GuardedMethods deployed(Map<String, String> config) {
        GuardedMethods.Builder builder = new GuardedMethods.Builder();
        for (Class<?> bean : new Class<?>[] {SalesInvoices.class, RefundInvoices.class}) {
            assertThat(builder.add(bean, PAY, PAY.getAnnotation(Locked.class), null)).isEmpty();
            assertThat(builder.add(bean, RENDER, null, RENDER.getAnnotation(Bounded.class))).isEmpty();
        }
        return builder.build(TestConfigs.of(config));
    }

    @Test
    void eachBeanInheritingAMethodGetsItsOwnLockNamedAfterItself() {
        GuardedMethods model = deployed(Map.of());
        assertThat(model.lock(SalesInvoices.class, PAY).name()).isEqualTo("SalesInvoices.pay");
        assertThat(model.lock(RefundInvoices.class, PAY).name()).isEqualTo("RefundInvoices.pay");
        assertThat(model.lockNames()).containsExactly("RefundInvoices.pay", "SalesInvoices.pay");
        assertThat(model.semaphoreNames()).containsExactly("pdf");
    }

    @Test
    void theMethodIsFoundWhicheverClassTheContainerSaysDeclaresIt() {
        GuardedMethods model = deployed(Map.of());
        GuardedMethods.LockGuard guard = model.lock(SalesInvoices.class, PAY);
        assertThat(model.lock(SalesInvoices.class, method(SalesInvoicesSubclass.class, "pay"))).isSameAs(guard);
        assertThat(guard.key().render(new Object[] {7L})).isEqualTo("invoice:7");
    }

    @Test
    void configurationOverridesAreAppliedWhenTheModelIsBuilt() {
        GuardedMethods model = deployed(Map.of("sluice.lock.SalesInvoices.pay.max-wait", "0",
                "sluice.lock.SalesInvoices.pay.lease", "90s", "sluice.semaphore.pdf.permits", "5"));
        GuardedMethods.LockGuard sales = model.lock(SalesInvoices.class, PAY);
        assertThat(sales.maxWait()).isEqualTo(Duration.ZERO);
        assertThat(sales.lease()).isEqualTo(Duration.ofSeconds(90));
        GuardedMethods.LockGuard refunds = model.lock(RefundInvoices.class, PAY);
        assertThat(refunds.maxWait()).isEqualTo(Duration.ofSeconds(2));
        assertThat(refunds.lease()).isEqualTo(Duration.ofSeconds(20));
        assertThat(model.bound(SalesInvoices.class, RENDER).permits()).isEqualTo(5);
    }

    @Test
    void everyCallFindsTheGuardBuiltAtDeployment() {
        GuardedMethods model = deployed(Map.of());
        assertThat(model.lock(SalesInvoices.class, PAY)).isSameAs(model.lock(SalesInvoices.class, PAY));
        assertThat(model.bound(RefundInvoices.class, RENDER)).isSameAs(model.bound(RefundInvoices.class, RENDER));
    }

    @Test
    void aMethodTheContainerNeverAnnouncedIsBuiltOnceFromItsAnnotations() {
        GuardedMethods model = deployed(Map.of("sluice.lock.Unannounced.sweep.lease", "3s"));
        Method sweep = method(Unannounced.class, "sweep");
        GuardedMethods.LockGuard guard = model.lock(Unannounced.class, sweep);
        assertThat(guard.name()).isEqualTo("Unannounced.sweep");
        assertThat(guard.lease()).isEqualTo(Duration.ofSeconds(3));
        assertThat(model.lock(Unannounced.class, sweep)).isSameAs(guard);
        assertThat(model.lockNames()).doesNotContain("Unannounced.sweep");
    }

    @Test
    void aMethodWithoutTheAnnotationIsAnErrorOfTheCaller() {
        assertThatThrownBy(() -> deployed(Map.of()).lock(SalesInvoices.class, RENDER))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Invoices#render()");
    }

    @Test
    void aLeaseBelowOneMillisecondFailsTheDeploymentOnTheAnnotationAndOnEveryOverride() {
        @SuppressWarnings("unused")
        class Hasty {
            @Locked(key = "x", lease = "PT0.0005S")
            public void lock() {
            }

            @Bounded(value = "hasty", lease = "PT0.0009S")
            public void bound() {
            }
        }
        Method lock = method(Hasty.class, "lock");
        Method bound = method(Hasty.class, "bound");
        assertThat(new GuardedMethods.Builder().add(Hasty.class, lock, lock.getAnnotation(Locked.class), null))
                .singleElement().extracting(Throwable::getMessage).asString()
                .startsWith("Invalid @Locked.lease on ").contains("PT0.0005S").contains("from 1ms to 3650d");
        assertThat(new GuardedMethods.Builder().add(Hasty.class, bound, null, bound.getAnnotation(Bounded.class)))
                .singleElement().extracting(Throwable::getMessage).asString()
                .startsWith("Invalid @Bounded.lease on ").contains("PT0.0009S").contains("from 1ms to 3650d");

        for (String key : List.of("sluice.lock.SalesInvoices.pay.lease", "sluice.semaphore.pdf.lease")) {
            assertThatThrownBy(() -> deployed(Map.of(key, "PT0.0005S"))).as(key)
                    .isInstanceOf(SluiceConfigException.class)
                    .hasMessageContaining(key).hasMessageContaining("PT0.0005S").hasMessageContaining("from 1ms to 3650d");
            assertThatThrownBy(() -> deployed(Map.of(key, "3651d"))).as(key).hasMessageContaining("3651d");
        }
        assertThat(deployed(Map.of("sluice.lock.SalesInvoices.pay.lease", "1ms",
                "sluice.semaphore.pdf.lease", "3650d"))).isNotNull();
    }

    @Test
    void invalidAnnotationsAreReportedNamingTheBeanClassAndMethod() {
        @SuppressWarnings("unused")
        class Broken {
            @Locked(key = "x:{1}", maxWait = "soon")
            public void fix(String id) {
            }
        }
        Method fix = method(Broken.class, "fix");
        assertThat(new GuardedMethods.Builder().add(SalesInvoices.class, fix, fix.getAnnotation(Locked.class), null))
                .singleElement().isInstanceOf(SluiceConfigException.class).extracting(Throwable::getMessage).asString()
                .startsWith("Invalid @Locked.key on " + SalesInvoices.class.getName() + "#fix(String)");
    }
}
