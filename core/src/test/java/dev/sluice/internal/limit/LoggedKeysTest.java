package dev.sluice.internal.limit;

import dev.sluice.internal.config.KeySpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a log line may show of a bucket key: addresses, principals and paths, never a chosen value. */
class LoggedKeysTest {

    private static final String TAG = "#[0-9a-f]{8}";

    @Test
    void valuesFromHeadersParametersAndBeansAppearOnlyAsATag() {
        assertThat(LoggedKeys.of(KeySpec.Type.HEADER, "h:sk1")).matches("h:" + TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.QUERY, "q:tok")).matches("q:" + TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.PATH_PARAM, "p:42")).matches("p:" + TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.BEAN, "tenant-acme")).matches(TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.BEAN, "user:alice")).as("a bean's value, whatever it looks like")
                .matches(TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.IP, "sk_live_abc")).as("a programmatic caller's key").matches(TAG);
        assertThat(LoggedKeys.of(KeySpec.Type.HEADER, "h:sk1")).as("one value, one tag")
                .isEqualTo(LoggedKeys.of(KeySpec.Type.HEADER, "h:sk1"))
                .isNotEqualTo(LoggedKeys.of(KeySpec.Type.HEADER, "h:sk2"));
    }

    @Test
    void addressesPrincipalsPathsAndTheGlobalKeyStayReadable() {
        assertThat(LoggedKeys.of(KeySpec.Type.IP, "192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(LoggedKeys.of(KeySpec.Type.IP, "2001:db8:1:2::/64")).isEqualTo("2001:db8:1:2::/64");
        assertThat(LoggedKeys.of(KeySpec.Type.HEADER, "ip:192.0.2.7")).as("the anonymous fallback")
                .isEqualTo("ip:192.0.2.7");
        assertThat(LoggedKeys.of(KeySpec.Type.BEAN, "192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(LoggedKeys.of(KeySpec.Type.PRINCIPAL, "user:alice")).isEqualTo("user:alice");
        assertThat(LoggedKeys.of(KeySpec.Type.PATH, "/api/orders")).isEqualTo("/api/orders");
        assertThat(LoggedKeys.of(KeySpec.Type.GLOBAL, "global")).isEqualTo("global");
        assertThat(LoggedKeys.of(KeySpec.Type.PRINCIPAL, "user:a\r\nb")).as("never a line break")
                .doesNotContain("\n").startsWith("#");
    }

    @Test
    void aLimitCallPrintsItsKeyOnlyAsALogLineMayShowIt() {
        dev.sluice.internal.config.PolicyConfig api = dev.sluice.internal.config.SluiceConfigLoader.load(
                dev.sluice.internal.config.ConfigSources.of(java.util.Map.of("sluice.limit.api.rate", "5/1m",
                        "sluice.limit.api.key", "header:X-Api-Key"))).policies().get("api");

        String printed = new RateLimitEngine.LimitCall(api, "h:sk_live_secret", 1).toString();

        assertThat(printed).doesNotContain("sk_live_secret").contains("api").containsPattern("h:" + TAG);
    }
}
