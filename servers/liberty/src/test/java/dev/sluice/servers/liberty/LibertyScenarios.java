package dev.sluice.servers.liberty;

import dev.sluice.servers.ConcurrencyScenario;
import dev.sluice.servers.SessionBeanScenarios;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the sample does on every Open Liberty configuration: its scenarios with the {@code @Stateless} box office,
 * and the servlet filter's concurrency limit. Subclasses register the {@link LibertyServer} of their configuration
 * as {@code @Order(3)}, return it from {@link #server()} and say where the application answers.
 */
abstract class LibertyScenarios extends SessionBeanScenarios {

    /** At most two requests of a client in flight under {@code conc-slow}. */
    @Test
    @Order(150)
    void concurrencyLimitHoldsTwoRequestsInFlightAndRefusesTheThird() {
        eachApp(ConcurrencyScenario::check);
    }

    /**
     * The servlet filter, the JAX-RS feature and the CDI extension of the one application share one Sluice
     * runtime (one Redis pool, one circuit breaker, one lock service): Sluice logs {@code Sluice started} once.
     * Last, when every adapter has started (javaee-8.0 starts JAX-RS on its first request).
     */
    @Test
    @Order(10_000)
    void oneRuntimeServesTheApplication() {
        String messages = server().messages();
        assertThat(Pattern.compile("Sluice started \\(app ").matcher(messages).results().count())
                .as(messages).isEqualTo(1);
    }

    /** The server the subclass registered. */
    protected abstract LibertyServer server();
}
