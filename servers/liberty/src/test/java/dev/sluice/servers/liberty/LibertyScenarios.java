package dev.sluice.servers.liberty;

import dev.sluice.servers.ConcurrencyScenario;
import dev.sluice.servers.SessionBeanScenarios;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * What the sample does on every Open Liberty configuration: its scenarios with the {@code @Stateless} box office,
 * and the servlet filter's concurrency limit. Subclasses register the {@link LibertyServer} of their configuration
 * as {@code @Order(3)} and say where the application answers.
 */
abstract class LibertyScenarios extends SessionBeanScenarios {

    /** At most two requests of a client in flight under {@code conc-slow}. */
    @Test
    @Order(150)
    void concurrencyLimitHoldsTwoRequestsInFlightAndRefusesTheThird() {
        eachApp(ConcurrencyScenario::check);
    }
}
