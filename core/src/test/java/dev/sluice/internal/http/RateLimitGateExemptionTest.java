package dev.sluice.internal.http;

import dev.sluice.RequestView;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.CountedStatuses;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.limit.DenyCache;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice.limit.<policy>.exempt} in the one decision both adapters call: an exempt client is neither
 * asked about nor charged by that policy and gets no headers from it, while the policy is still recorded as
 * decided so that no later filter charges it.
 */
class RateLimitGateExemptionTest {

    private final RateLimitGateTest.SwitchableStore store = new RateLimitGateTest.SwitchableStore();
    private final AtomicLong nanos = new AtomicLong();
    private final SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
    private final RateLimitGate gate = new RateLimitGate(Engines.over(store, "sluice", metrics,
            new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "test store"), new DenyCache(100, nanos::get)),
            HeaderMode.IETF);

    private static PolicyConfig policy(String name, KeySpec key, Exemptions exempt) {
        return new PolicyConfig(name, List.of(new Bandwidth(1, Duration.ofHours(1), 1)), key, List.of("/api/*"),
                Set.of(), 1, true, FailureMode.ALLOW, PolicyMode.ENFORCE, CountedStatuses.ALL, exempt, 0);
    }

    private static Exemptions networks(String... cidrs) {
        return new Exemptions(Arrays.stream(cidrs).map(c -> Cidr.parse("sluice.limit.api.exempt", c)).toList(),
                Set.of(), Set.of());
    }

    private Verdict decide(TestRequest request, PolicyConfig... policies) {
        return gate.decide(request, Arrays.stream(policies).map(p -> RateLimitGate.Policy.of(p, false)).toList(),
                null);
    }

    @Test
    void anExemptPrincipalIsNeverAskedNorChargedAndGetsNoHeadersButIsRecordedAsDecided() {
        PolicyConfig api = policy("api", KeySpec.IP, new Exemptions(List.of(), Set.of("monitor"), Set.of()));
        for (int i = 0; i < 3; i++) {
            Verdict v = decide(TestRequest.get("/api/x").user("monitor"), api);
            assertThat(v.admitted()).isTrue();
            assertThat(v.headers()).isEmpty();
            assertThat(v.charged()).contains(Set.of("api"));
        }
        assertThat(store.calls).as("the store is not asked").hasValue(0);
        assertThat(metrics.policy("api").exemptCount()).isEqualTo(3);

        Verdict sameAddress = decide(TestRequest.get("/api/x").user("alice"), api);
        assertThat(sameAddress.decisions()).singleElement()
                .satisfies(d -> assertThat(d.remaining()).as("the bucket is full").isZero());
        assertThat(decide(TestRequest.get("/api/x"), api).status()).isEqualTo(429);
    }

    @Test
    void anExemptRoleIsAskedOfTheRequest() {
        PolicyConfig api = policy("api", KeySpec.IP, new Exemptions(List.of(), Set.of(), Set.of("ops", "probe")));
        decide(TestRequest.get("/api/x").roles("probe"), api);
        decide(TestRequest.get("/api/x").roles("probe", "user"), api);
        assertThat(store.calls).hasValue(0);

        assertThat(decide(TestRequest.get("/api/x").roles("user"), api).admitted()).isTrue();
        assertThat(decide(TestRequest.get("/api/x").roles("user"), api).status()).isEqualTo(429);
        assertThat(metrics.policy("api").exemptCount()).isEqualTo(2);
    }

    @Test
    void anExemptNetworkMatchesTheFullClientAddressNotItsIpv6Network() {
        PolicyConfig api = policy("api", KeySpec.IP, networks("10.0.0.0/8", "2001:db8:1:2::7/128"));
        assertThat(decide(TestRequest.get("/api/x").from("10.1.2.3"), api).headers()).isEmpty();
        assertThat(decide(TestRequest.get("/api/x").from("2001:db8:1:2::/64").fromIp("2001:db8:1:2::7"), api)
                .headers()).isEmpty();
        assertThat(store.calls).hasValue(0);

        TestRequest neighbour = TestRequest.get("/api/x").from("2001:db8:1:2::/64").fromIp("2001:db8:1:2::8");
        assertThat(decide(neighbour, api).decisions()).as("same /64, other address: limited").hasSize(1);
        assertThat(decide(TestRequest.get("/api/x").from("192.0.2.1"), api).decisions()).hasSize(1);
        assertThat(metrics.policy("api").exemptCount()).isEqualTo(2);
    }

    @Test
    void aViewThatKnowsOnlyTheIpv6NetworkExemptsNobodyByAddress() {
        PolicyConfig api = policy("api", KeySpec.IP, networks("2001:db8:1:2::/64"));
        // TestRequest without fromIp uses RequestView's default clientIp(): a network is not an address
        assertThat(decide(TestRequest.get("/api/x").from("2001:db8:1:2::/64"), api).decisions()).hasSize(1);
        assertThat(metrics.policy("api").exemptCount()).isZero();
    }

    @Test
    void anExemptionOfOnePolicyLeavesTheOtherPoliciesOfTheRequestToDecide() {
        PolicyConfig open = policy("open", KeySpec.IP, new Exemptions(List.of(), Set.of("monitor"), Set.of()));
        PolicyConfig strict = policy("strict", KeySpec.IP, Exemptions.NONE);
        Verdict first = decide(TestRequest.get("/api/x").user("monitor"), open, strict);
        assertThat(first.decisions()).extracting(d -> d.policy()).containsExactly("strict");
        assertThat(first.charged()).contains(Set.of("open", "strict"));
        assertThat(store.keys).containsExactly(List.of("sluice:rl:{strict:192.0.2.1}"));
        assertThat(decide(TestRequest.get("/api/x").user("monitor"), open, strict).status()).isEqualTo(429);
    }

    @Test
    void checkingAPolicyWithoutExemptionsAllocatesNothing() {
        RequestView request = TestRequest.get("/api/x").user("alice").roles("user");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        boolean any = false;
        for (int i = 0; i < 1_000; i++) {  // warm up, so that the measured loop runs compiled or interpreted alike
            any |= RateLimitGate.isExempt(Exemptions.NONE, request);
        }
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 100_000; i++) {
            any |= RateLimitGate.isExempt(Exemptions.NONE, request);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(any).isFalse();
        assertThat(allocated).as("bytes for 100000 checks (the measurement itself takes a few)").isLessThan(1_000);
    }

    @Test
    void theDefaultClientIpOfAUserViewIsItsClientAddressWhenThatIsOneAddress() {
        assertThat(TestRequest.get("/").from("192.0.2.7").clientIp()).isEqualTo("192.0.2.7");
        assertThat(TestRequest.get("/").from("2001:db8::7").clientIp()).isEqualTo("2001:db8::7");
        assertThat(TestRequest.get("/").from("2001:db8::/64").clientIp()).isEmpty();
        assertThat(Optional.of(TestRequest.get("/").isUserInRole("user"))).contains(false);
    }
}
