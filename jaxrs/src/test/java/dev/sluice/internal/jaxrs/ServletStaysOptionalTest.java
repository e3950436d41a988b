package dev.sluice.internal.jaxrs;

import dev.sluice.jaxrs.RateLimitFeature;
import dev.sluice.jaxrs.RateLimited;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JAX-RS runtimes outside servlet containers have no servlet API. Only the classes that a servlet
 * container alone ever loads may name servlet types; every class on the request path must not, or loading it
 * would fail there. Checked on the compiled classes' constant pools.
 */
class ServletStaysOptionalTest {

    @Test
    void onlyTheServletBridgesNameServletTypes() throws IOException {
        for (Class<?> type : List.of(RateLimitFeature.class, RateLimited.class, RateLimited.List.class,
                JaxrsRateLimits.class, MethodPolicies.class, ContainerRequestView.class,
                RateLimitRequestFilter.class, RateLimitResponseFilter.class, FeatureStarts.class,
                RateLimitWriterInterceptor.class)) {
            assertThat(constantPool(type)).as(type.getName()).doesNotContain("jakarta/servlet");
        }
        assertThat(constantPool(ServletPeerFilter.class)).contains("jakarta/servlet/http/HttpServletRequest");
        assertThat(constantPool(ServletAsyncCompletion.class)).contains("jakarta/servlet/ServletRequestListener");
    }

    private static String constantPool(Class<?> type) throws IOException {
        String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
