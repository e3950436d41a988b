package dev.sluice.jaxrs;

import org.junit.jupiter.api.Test;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenarios that need a servlet container: the real {@code RateLimitFilter} in front of the JAX-RS
 * application, sharing one policy's bucket with it.
 */
abstract class AbstractServletRateLimitedResourceIT extends AbstractRateLimitedResourceIT {

    @Test
    void policiesChargedByTheServletFilterAreNotChargedAgain() throws Exception {
        deployScenarios();

        // charged by the servlet filter only: its headers, untouched by JAX-RS
        assertThat(assertAllowed(get("shared/filtered"), "shared", 3, HOUR).remaining()).isEqualTo(2);
        // not matched by the filter: charged by JAX-RS, in the same bucket
        assertThat(assertAllowed(get("shared/direct"), "shared", 3, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("shared/filtered"), "shared", 3, HOUR).remaining()).isZero();
        assertTooManyRequests(get("shared/direct"), "shared", 3, HOUR);
        assertTooManyRequests(get("shared/filtered"), "shared", 3, HOUR);
    }

    @Test
    void anUnmappedExceptionGivesThePermitBackThroughTheServletFilter() throws Exception {
        ConcurrencyResources.reset();
        deployScenarios();
        for (int i = 0; i < 3; i++) {
            // no response filter runs for it; the servlet filter in front completes the request
            assertThat(get("conc/unmapped-failure").statusCode()).isEqualTo(500);
            awaitAdmitted("conc/mapped-failure", 409);
        }
    }

}
