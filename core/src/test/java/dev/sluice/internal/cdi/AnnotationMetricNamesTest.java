package dev.sluice.internal.cdi;

import dev.sluice.internal.metrics.SluiceMetrics;
import io.micrometer.core.instrument.Meter;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Locked} keys are rendered from method arguments, that is from request data; metrics must carry
 * the lock's name instead. Deployed in Weld through the ordinary path (the extension acquires the
 * application's runtime), with a Micrometer registry bean, and undeployed at the end.
 */
@EnableWeld
class AnnotationMetricNamesTest {

    private static final Set<String> LOCK_NAMES = Set.of("Tickets.buy", "Tickets.byName", "Tickets.holdWhile",
            "Tickets.buyWithSeat", "Tickets.report", "Tickets.commitUnderLock", "Seats.reserve");

    private final SluiceExtension extension = new SluiceExtension(cl -> TestConfigs.of(Map.of(
            "sluice.semaphore.render.permits", "3")));

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Tickets.class, Seats.class, PdfRenderer.class, FakeTransactionInterceptor.class,
                            MeterRegistryProducer.class)
                    .addExtension(extension))
            .build();

    @Inject
    Tickets tickets;

    @Inject
    PdfRenderer renderer;

    @Test
    void lockMetricsCarryAnnotationNamesNeverRenderedKeys() throws Exception {
        String app = extension.runtime().metrics().app();
        Random random = new Random(8);
        for (int i = 0; i < 1000; i++) {
            tickets.buy(random.nextLong(), 1);
        }
        renderer.render();

        assertThat(nameValues(app, "Lock")).isEqualTo(LOCK_NAMES);
        assertThat(nameValues(app, "Semaphore")).containsExactlyInAnyOrder("pdf", "render");
        ObjectName buy = mbeans(app, "Lock").stream().filter(n -> n.getKeyProperty("name").equals("Tickets.buy"))
                .findFirst().orElseThrow();
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(buy, "Acquired")).isEqualTo(1000L);
        assertThat(tagValues(app, "lock")).isEqualTo(LOCK_NAMES);
        assertThat(tagValues(app, "semaphore")).containsExactlyInAnyOrder("pdf", "render");
        assertThat(extension.runtime().metrics().names(dev.sluice.internal.metrics.Kind.LOCK))
                .doesNotContain(SluiceMetrics.OTHER);

        weld.shutdown();

        assertThat(nameValues(app, "Lock")).isEmpty();
        assertThat(mbeans(app, null)).isEmpty();
        assertThat(tagValues(app, "lock")).isEmpty();
    }

    private static Set<String> nameValues(String app, String type) throws Exception {
        return mbeans(app, type).stream().map(n -> n.getKeyProperty("name")).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The application's Sluice MBeans (of {@code type}, or all); its id may stand quoted in the ObjectName. */
    private static Set<ObjectName> mbeans(String app, String type) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        return server.queryNames(new ObjectName("dev.sluice:*"), null).stream()
                .filter(n -> app.equals(n.getKeyProperty("app")) || ObjectName.quote(app).equals(n.getKeyProperty("app")))
                .filter(n -> type == null || type.equals(n.getKeyProperty("type")))
                .collect(Collectors.toSet());
    }

    private static Set<String> tagValues(String app, String key) {
        return MeterRegistryProducer.REGISTRY.getMeters().stream().map(Meter::getId)
                .filter(id -> app.equals(id.getTag("app"))).map(id -> id.getTag(key)).filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
