package dev.sluice.internal.cdi;

import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Invalid annotations and configuration fail deployment, with messages naming where and what. */
class DeploymentValidationTest {

    private static void deploy(Class<?> bean, Map<String, String> config) {
        Weld weld = new Weld("sluice-validation-" + bean.getSimpleName()).disableDiscovery()
                .addBeanClasses(bean)
                .addExtension(new SluiceExtension(cl -> TestConfigs.of(config)));
        try (WeldContainer container = weld.initialize()) {
            container.select(bean).get();
        }
    }

    @Test
    void templateIndexPastTheLastParameterFailsDeployment() {
        assertThatThrownBy(() -> deploy(BadTemplates.IndexPastLastParameter.class, Map.of()))
                .hasMessageContaining("Invalid @Locked.key on " + BadTemplates.IndexPastLastParameter.class.getName()
                        + "#buy(long, int)")
                .hasMessageContaining("\"order:{2}\"")
                .hasMessageContaining("the method has 2 parameters");
    }

    @Test
    void templateNamingNoParameterFailsDeploymentListingTheParameters() {
        assertThatThrownBy(() -> deploy(BadTemplates.UnknownParameterName.class, Map.of()))
                .hasMessageContaining("UnknownParameterName#buy(long)")
                .hasMessageContaining("{orderNo} names no parameter; the parameters are [orderId]");
    }

    @Test
    void unclosedBraceFailsDeployment() {
        assertThatThrownBy(() -> deploy(BadTemplates.UnclosedBrace.class, Map.of()))
                .hasMessageContaining("UnclosedBrace#buy(long)")
                .hasMessageContaining("is never closed");
    }

    @Test
    void unreadableLeaseFailsDeploymentNamingTheValueAndTheForm() {
        assertThatThrownBy(() -> deploy(BadTemplates.BadLease.class, Map.of()))
                .hasMessageContaining("Invalid @Locked.lease on " + BadTemplates.BadLease.class.getName() + "#buy(): ")
                .hasMessageContaining("\"ten seconds\"")
                .hasMessageContaining("250ms, 2s");
    }

    @Test
    void classLevelBoundedWithoutPermitsFailsDeployment() {
        assertThatThrownBy(() -> deploy(BadTemplates.NoPermits.class, Map.of()))
                .hasMessageContaining("Invalid @Bounded.permits on " + BadTemplates.NoPermits.class.getName() + "#render()")
                .hasMessageContaining("0 is lower than 1; expected 1 or more permits");
    }

    @Test
    void aBlankSemaphoreNameFailsDeploymentQuotingIt() {
        assertThatThrownBy(() -> deploy(BadTemplates.BlankSemaphoreName.class, Map.of()))
                .hasMessageContaining("Invalid @Bounded.value on " + BadTemplates.BlankSemaphoreName.class.getName()
                        + "#render(): \" \" is blank; expected the name of the semaphore");
    }

    @Test
    void invalidOverrideInConfigFailsDeployment() {
        assertThatThrownBy(() -> deploy(Tickets.class, Map.of("sluice.lock.Tickets.report.lease", "forever")))
                .hasMessageContaining("sluice.lock.Tickets.report.lease")
                .hasMessageContaining("\"forever\"");
    }

    @Test
    void aParameterThatWouldLockByObjectIdentityFailsDeploymentNamingClassMethodAndParameter() {
        assertThatThrownBy(() -> deploy(BadTemplates.IdentityParameter.class, Map.of()))
                .hasMessageContaining("Invalid @Locked.key on " + BadTemplates.IdentityParameter.class.getName()
                        + "#settle(Order)")
                .hasMessageContaining("{0} is a " + Orders.Order.class.getName())
                .hasMessageContaining("does not override toString()")
                .hasMessageContaining("{0.id}");
    }

    @Test
    void anArrayParameterFailsDeployment() {
        assertThatThrownBy(() -> deploy(BadTemplates.ArrayParameter.class, Map.of()))
                .hasMessageContaining("Invalid @Locked.key on " + BadTemplates.ArrayParameter.class.getName()
                        + "#settle(long[])")
                .hasMessageContaining("{ids} is an array (long[])");
    }

    @Test
    void anUnknownPropertyFailsDeployment() {
        assertThatThrownBy(() -> deploy(BadTemplates.UnknownProperty.class, Map.of()))
                .hasMessageContaining("Invalid @Locked.key on " + BadTemplates.UnknownProperty.class.getName()
                        + "#settle(Order)")
                .hasMessageContaining("{order.number}: " + Orders.Order.class.getName() + " has no property number");
    }
}
