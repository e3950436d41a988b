package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.http.RateLimitHeaders.Header;
import dev.sluice.test.StructuredFields;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.limit.RateLimitEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateLimitHeadersTest {

    private static RateLimitDecision allowed(String policy, long remaining, long limit, long window, long retryMillis, long resetMillis) {
        return RateLimitDecision.of(policy, true, remaining, limit, window, retryMillis, resetMillis);
    }

    private static RateLimitDecision denied(String policy, long limit, long window, long retryMillis, long resetMillis) {
        return RateLimitDecision.of(policy, false, 0, limit, window, retryMillis, resetMillis);
    }

    private static Map<String, String> map(List<Header> headers) {
        return headers.stream().collect(Collectors.toMap(Header::name, Header::value));
    }

    @Test
    void describesThePolicyWithTheFewestRemainingTokensWhenAllowed() {
        List<Header> headers = RateLimitHeaders.allowed(List.of(
                allowed("api", 99, 100, 60, 0, 600),
                allowed("login", 3, 5, 60, 0, 24_000)), HeaderMode.IETF);
        assertThat(map(headers)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "RateLimit-Policy", "\"login\";q=5;w=60",
                "RateLimit", "\"login\";r=3;t=0"));
    }

    @Test
    void describesAPolicyByItsBucketOfTheMomentWhenTheSameNameChangesBucket() {
        // A policy's field is written once per bucket: a reload, or another bandwidth being the tightest, gives
        // the same name another bucket, and each response must describe the one it was decided by.
        String name = "reshaped-" + System.nanoTime();
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed(name, 4, 5, 60, 0, 0)), HeaderMode.IETF)))
                .containsEntry("RateLimit-Policy", "\"" + name + "\";q=5;w=60");
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed(name, 4, 50, 60, 0, 0)), HeaderMode.IETF)))
                .containsEntry("RateLimit-Policy", "\"" + name + "\";q=50;w=60");
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed(name, 4, 50, 3600, 0, 0)), HeaderMode.IETF)))
                .containsEntry("RateLimit-Policy", "\"" + name + "\";q=50;w=3600");
        assertThat(map(RateLimitHeaders.allowed(List.of(RateLimitDecision.ofConcurrency(name, true, 1, 50, 0, 0)),
                HeaderMode.IETF))).containsEntry("RateLimit-Policy", "\"" + name + "\";q=50;qu=\"concurrent-requests\"");
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed(name, 4, 5, 60, 0, 0)), HeaderMode.IETF)))
                .containsEntry("RateLimit-Policy", "\"" + name + "\";q=5;w=60");
    }

    @Test
    void givesTheSecondsUntilTheNextTokenWhenTheLastWasTaken() {
        List<Header> headers = RateLimitHeaders.allowed(List.of(allowed("login", 0, 5, 60, 11_001, 60_000)), HeaderMode.IETF);
        assertThat(map(headers)).containsEntry("RateLimit", "\"login\";r=0;t=12");
    }

    @Test
    void writesFieldsThatParseAsStructuredFieldLists() {
        List<Header> headers = RateLimitHeaders.denied(List.of(denied("we\"ird\\name", 5, 60, 1, 60_000)), HeaderMode.IETF);
        Map<String, String> m = map(headers);
        StructuredFields.Item policy = StructuredFields.parseList(m.get("RateLimit-Policy")).get(0);
        StructuredFields.Item limit = StructuredFields.parseList(m.get("RateLimit")).get(0);
        assertThat(policy.value()).isEqualTo("we\"ird\\name");
        assertThat(policy.parameters()).containsExactly(Map.entry("q", 5L), Map.entry("w", 60L));
        assertThat(limit.value()).isEqualTo("we\"ird\\name");
        assertThat(limit.parameters()).containsExactly(Map.entry("r", 0L), Map.entry("t", 1L));
    }

    @Test
    void replacesCharactersAStructuredFieldStringCannotHold() {
        assertThat(RateLimitHeaders.sfString("caf\u00e9\ttab")).isEqualTo("\"caf??tab\"");
        assertThat(RateLimitHeaders.sfString(" a b~")).as("space and tilde, the printable range's ends, kept")
                .isEqualTo("\" a b~\"");
        assertThat(RateLimitHeaders.sfString("\u001fx\u007f")).as("just outside it").isEqualTo("\"?x?\"");
        assertThat(RateLimitHeaders.sfString("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    }

    @Test
    void roundsRetryAfterUpAndNeverToZero() {
        assertThat(map(RateLimitHeaders.denied(List.of(denied("p", 5, 60, 1, 100)), HeaderMode.IETF)))
                .containsEntry("Retry-After", "1").containsEntry("RateLimit", "\"p\";r=0;t=1");
        assertThat(map(RateLimitHeaders.denied(List.of(denied("p", 5, 60, 12_000, 100)), HeaderMode.IETF)))
                .containsEntry("Retry-After", "12");
        assertThat(map(RateLimitHeaders.denied(List.of(denied("p", 5, 60, 12_001, 100)), HeaderMode.IETF)))
                .containsEntry("Retry-After", "13");
        assertThat(RateLimitHeaders.retryAfterSeconds(List.of(denied("p", 5, 60, 0, 0)))).isEqualTo(1);
    }

    @Test
    void namesTheDenyingPolicyWithTheLongestWaitAndWaitsForIt() {
        List<RateLimitDecision> decisions = List.of(
                allowed("api", 10, 100, 60, 0, 100),
                denied("burst", 10, 1, 90, 1000),
                denied("daily", 1000, 86400, 3_600_000, 86_400_000));
        Map<String, String> m = map(RateLimitHeaders.denied(decisions, HeaderMode.IETF));
        assertThat(m).containsEntry("Retry-After", "3600")
                .containsEntry("RateLimit-Policy", "\"daily\";q=1000;w=86400")
                .containsEntry("RateLimit", "\"daily\";r=0;t=3600");
    }

    @Test
    void leavesOutRetryAfterAndTWhenTheRequestCanNeverPass() {
        Map<String, String> m = map(RateLimitHeaders.denied(List.of(
                denied("p", 5, 60, 2000, 100),
                denied("huge", 5, 60, RateLimitDecision.NEVER, 100)), HeaderMode.IETF));
        assertThat(m).doesNotContainKey("Retry-After").containsEntry("RateLimit", "\"huge\";r=0");
    }

    @Test
    void writesLegacyHeadersWithSecondsUntilFull() {
        Map<String, String> m = map(RateLimitHeaders.allowed(List.of(allowed("login", 3, 5, 60, 0, 24_001)), HeaderMode.LEGACY));
        assertThat(m).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "25"));
    }

    @Test
    void writesBothFamiliesOrNothing() {
        List<RateLimitDecision> d = List.of(allowed("login", 3, 5, 60, 0, 24_000));
        assertThat(map(RateLimitHeaders.allowed(d, HeaderMode.BOTH))).containsOnlyKeys(
                "RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
        assertThat(RateLimitHeaders.allowed(d, HeaderMode.NONE)).isEmpty();
        assertThat(RateLimitHeaders.allowed(List.of(), HeaderMode.IETF)).isEmpty();
    }

    @Test
    void keepsRetryAfterOnA429EvenWithoutInformationalHeaders() {
        assertThat(map(RateLimitHeaders.denied(List.of(denied("p", 5, 60, 2500, 100)), HeaderMode.NONE)))
                .containsExactly(Map.entry("Retry-After", "3"));
    }

    /**
     * Every header of every variant, allowed and denied, through the engine from configuration, at the largest
     * bucket the configuration accepts and with a burst above the token count: each parses as a Structured
     * Field (Integer for the legacy headers and Retry-After), and the remaining count never exceeds the limit
     * shown beside it.
     */
    @ParameterizedTest
    @EnumSource(value = HeaderMode.class, names = {"IETF", "LEGACY", "BOTH"})
    void everyVariantParsesAsStructuredFieldsAndShowsRemainingWithinTheLimit(HeaderMode mode) {
        for (String[] config : List.of(
                new String[] {"1000000/1s", "999999999999999"},
                new String[] {"999999999999999/PT999999999.999999S", null},
                new String[] {"10/1s", "25"},
                new String[] {"7/1s,1000/1h", "3"})) {
            Map<String, String> values = new java.util.HashMap<>(Map.of("sluice.limit.p.rate", config[0]));
            if (config[1] != null) {
                values.put("sluice.limit.p.burst", config[1]);
            }
            PolicyConfig policy = SluiceConfigLoader.load(ConfigSources.of(values)).policy("p").orElseThrow();
            long capacity = policy.bandwidths().get(0).capacity();
            RateLimitEngine engine = Engines.over(new InProcessRateLimitStore(() -> 1_795_000_000_000_000L), "s");
            RateLimitDecision allowed = engine.decide(policy, "k", 1);
            RateLimitDecision denied = engine.decide(policy, "k", capacity);
            assertThat(allowed.allowed()).isTrue();
            assertThat(denied.allowed()).isFalse();
            checkFields(RateLimitHeaders.allowed(List.of(allowed), mode), config[0]);
            checkFields(RateLimitHeaders.denied(List.of(denied), mode), config[0]);
        }
    }

    private static void checkFields(List<Header> headers, String rate) {
        Map<String, String> m = map(headers);
        assertThat(m).as(rate).isNotEmpty();
        m.forEach((name, value) -> {
            List<StructuredFields.Item> items = StructuredFields.parseList(value);
            assertThat(items).as("%s: %s: %s", rate, name, value).hasSize(1);
            if (!name.startsWith("RateLimit")) {
                assertThat(items.get(0).value()).as("%s: %s", rate, name).isInstanceOf(Long.class);
                assertThat(items.get(0).parameters()).isEmpty();
            }
        });
        if (m.containsKey("RateLimit")) {
            long q = (Long) StructuredFields.parseList(m.get("RateLimit-Policy")).get(0).parameter("q");
            long r = (Long) StructuredFields.parseList(m.get("RateLimit")).get(0).parameter("r");
            assertThat(r).as("%s: r of %s within q of %s", rate, m.get("RateLimit"), m.get("RateLimit-Policy"))
                    .isBetween(0L, q);
        }
        if (m.containsKey("X-RateLimit-Limit")) {
            assertThat(Long.parseLong(m.get("X-RateLimit-Remaining")))
                    .isBetween(0L, Long.parseLong(m.get("X-RateLimit-Limit")));
        }
    }

    @Test
    void refusesToDescribeADenialWithoutADeniedDecision() {
        assertThatThrownBy(() -> RateLimitHeaders.denying(List.of(allowed("p", 1, 5, 60, 0, 0))))
                .isInstanceOf(IllegalArgumentException.class);
    }
    @Test
    void onATieDescribesTheFirstPolicySoTheHeadersDoNotDependOnChance() {
        List<Header> headers = RateLimitHeaders.allowed(List.of(
                allowed("api", 3, 100, 60, 0, 600),
                allowed("login", 3, 5, 60, 0, 24_000)), HeaderMode.IETF);
        assertThat(map(headers)).containsEntry("RateLimit", "\"api\";r=3;t=0");
        assertThat(RateLimitHeaders.denying(List.of(denied("api", 100, 60, 5_000, 60_000),
                denied("login", 5, 60, 5_000, 60_000))).policy()).isEqualTo("api");
    }

    @Test
    void roundsTheSecondsUntilTheNextTokenUpOnlyWhenThereIsARemainder() {
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed("login", 0, 5, 60, 1_000, 60_000)), HeaderMode.IETF)))
                .containsEntry("RateLimit", "\"login\";r=0;t=1");
        assertThat(map(RateLimitHeaders.allowed(List.of(allowed("login", 0, 5, 60, 1, 60_000)), HeaderMode.IETF)))
                .containsEntry("RateLimit", "\"login\";r=0;t=1");
    }

    @Test
    void keepsEveryPrintableAsciiCharacterOfAPolicyNameAndReplacesTheRest() {
        List<Header> headers = RateLimitHeaders.denied(List.of(denied(" a~\u001f\u007f", 5, 60, 1, 60_000)),
                HeaderMode.IETF);
        StructuredFields.Item policy = StructuredFields.parseList(map(headers).get("RateLimit-Policy")).get(0);
        assertThat(policy.value()).isEqualTo(" a~??");
    }
}
