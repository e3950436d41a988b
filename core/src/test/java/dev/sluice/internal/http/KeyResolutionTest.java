package dev.sluice.internal.http;

import dev.sluice.RequestView;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyResolutionTest {

    record View(String path, Map<String, String> headers, Map<String, String> query, Map<String, String> pathParams,
                String user, String clientAddress) implements RequestView {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name));
        }

        @Override
        public Optional<String> queryParameter(String name) {
            return Optional.ofNullable(query.get(name));
        }

        @Override
        public Optional<String> pathParameter(String name) {
            return Optional.ofNullable(pathParams.get(name));
        }

        @Override
        public Optional<String> principal() {
            return Optional.ofNullable(user);
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException(type.getName());
        }
    }

    private static final View ANONYMOUS = new View("/api/orders", Map.of(), Map.of(), Map.of(), null, "192.0.2.7");
    private static final View ALICE = new View("/api/orders", Map.of("X-Api-Key", "k-123"), Map.of("tenant", "acme"),
            Map.of("id", "42"), "alice", "192.0.2.7");

    private static KeyResolution key(KeySpec.Type type, String argument) {
        return KeyResolution.of(new PolicyConfig("p", List.of(new Bandwidth(5, Duration.ofMinutes(1), 5)),
                new KeySpec(type, argument), List.of("/*"), Set.of(), 1, true), true);
    }

    @Test
    void keysByClientAddress() {
        assertThat(key(KeySpec.Type.IP, "").rawKey(ALICE)).isEqualTo("192.0.2.7");
    }

    @Test
    void keysByPrincipalAndFallsBackToTheClientAddressForAnonymousRequests() {
        KeyResolution k = key(KeySpec.Type.PRINCIPAL, "");
        assertThat(k.rawKey(ALICE)).isEqualTo("user:alice");
        assertThat(k.rawKey(ANONYMOUS)).isEqualTo("ip:192.0.2.7");
    }

    @Test
    void anEmptyOrBlankPrincipalIsAnonymousAndKeyedByItsClientAddress() {
        KeyResolution k = key(KeySpec.Type.PRINCIPAL, "");
        View empty = new View("/", Map.of(), Map.of(), Map.of(), "", "192.0.2.7");
        View blank = new View("/", Map.of(), Map.of(), Map.of(), "  ", "198.51.100.1");
        assertThat(k.rawKey(empty)).isEqualTo("ip:192.0.2.7");
        assertThat(k.rawKey(blank)).as("not one bucket shared by every blank name").isEqualTo("ip:198.51.100.1");
    }

    @Test
    void keysByHeaderQueryOrPathParameterAndFallsBackToTheClientAddress() {
        assertThat(key(KeySpec.Type.HEADER, "X-Api-Key").rawKey(ALICE)).isEqualTo("h:k-123");
        assertThat(key(KeySpec.Type.HEADER, "X-Api-Key").rawKey(ANONYMOUS)).isEqualTo("ip:192.0.2.7");
        assertThat(key(KeySpec.Type.QUERY, "tenant").rawKey(ALICE)).isEqualTo("q:acme");
        assertThat(key(KeySpec.Type.QUERY, "tenant").rawKey(ANONYMOUS)).isEqualTo("ip:192.0.2.7");
        assertThat(key(KeySpec.Type.PATH_PARAM, "id").rawKey(ALICE)).isEqualTo("p:42");
    }

    @Test
    void aCraftedValueCannotLandInAnAnonymousClientsBucket() {
        View crafted = new View("/", Map.of("X-Api-Key", "ip:192.0.2.7"), Map.of(), Map.of(), null, "198.51.100.1");
        assertThat(key(KeySpec.Type.HEADER, "X-Api-Key").rawKey(crafted)).isNotEqualTo(
                key(KeySpec.Type.HEADER, "X-Api-Key").rawKey(ANONYMOUS));
    }

    @Test
    void treatsABlankValueAsAbsent() {
        View blank = new View("/", Map.of("X-Api-Key", "  "), Map.of(), Map.of(), null, "192.0.2.7");
        assertThat(key(KeySpec.Type.HEADER, "X-Api-Key").rawKey(blank)).isEqualTo("ip:192.0.2.7");
    }

    @Test
    void keysByPathOrGlobally() {
        assertThat(key(KeySpec.Type.PATH, "").rawKey(ALICE)).isEqualTo("/api/orders");
        assertThat(key(KeySpec.Type.GLOBAL, "").rawKey(ALICE)).isEqualTo(key(KeySpec.Type.GLOBAL, "").rawKey(ANONYMOUS));
    }

    @Test
    void keysByThePathAsPatternsMatchItSoOneResourceHasOneBucket() {
        for (String spelling : List.of("/api/orders/", "/api/orders;jsessionid=AB12", "/api;v=1/orders/;x=y",
                "/api/./orders", "/api/x/../orders", "//api//orders", "/api/orders/.")) {
            View view = new View(spelling, Map.of(), Map.of(), Map.of(), null, "192.0.2.7");
            assertThat(key(KeySpec.Type.PATH, "").rawKey(view)).as(spelling).isEqualTo("/api/orders");
        }
        View root = new View("/", Map.of(), Map.of(), Map.of(), null, "192.0.2.7");
        assertThat(key(KeySpec.Type.PATH, "").rawKey(root)).isEqualTo("/");
        View above = new View("/../..;x/", Map.of(), Map.of(), Map.of(), null, "192.0.2.7");
        assertThat(key(KeySpec.Type.PATH, "").rawKey(above)).as("never above the root").isEqualTo("/");
    }

    @Test
    void rejectsPathParameterKeysWhereThereAreNoPathParameters() {
        PolicyConfig policy = new PolicyConfig("orders", List.of(new Bandwidth(5, Duration.ofMinutes(1), 5)),
                new KeySpec(KeySpec.Type.PATH_PARAM, "id"), List.of("/orders/*"), Set.of(), 1, true);
        assertThatThrownBy(() -> KeyResolution.of(policy, false))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.limit.orders.key")
                .hasMessageContaining("path-param:id");
    }

    @Test
    void failsAtStartupWhenABeanKeyCannotBeResolvedWithoutCdi() {
        assertThatThrownBy(() -> key(KeySpec.Type.BEAN, "tenantKey"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.p.key: \"bean:tenantKey\" needs a CDI container")
                .hasMessageContaining("; expected a key other than bean:<name> without CDI");
    }
}
