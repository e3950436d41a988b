package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

class RedisSettingsLoaderTest {

    private static RedisSettings redis(Map<String, String> values) {
        return SluiceConfigLoader.load(ConfigSources.of(values)).redis();
    }

    @Test
    void usesInProcessStoreWithDefaultsWhenNothingIsSet() {
        RedisSettings r = redis(Map.of());
        assertThat(r.mode()).isEqualTo(RedisSettings.Mode.IN_PROCESS);
        assertThat(r.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(r.pool()).isEqualTo(new RedisSettings.Pool(64, 64, 0, Duration.ofMillis(500)));
    }

    @Test
    void readsStandaloneUriWithDatabaseAndDefaultPort() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://cache.internal/3"));
        assertThat(r.mode()).isEqualTo(RedisSettings.Mode.STANDALONE);
        assertThat(r.uri()).contains("redis://cache.internal:6379/3");
        assertThat(r.database()).isEqualTo(3);
        assertThat(r.tls()).isFalse();
        assertThat(r.user()).isEmpty();
        assertThat(r.password()).isEmpty();
    }

    @Test
    void splitsCredentialsOutOfTheUriAndNeverShowsThePassword() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "rediss://alice:s3cr%40t@10.0.0.5:6380"));
        assertThat(r.uri()).contains("rediss://10.0.0.5:6380/0");
        assertThat(r.user()).contains("alice");
        assertThat(r.password()).contains("s3cr@t");
        assertThat(r.tls()).isTrue();
        assertThat(r.toString()).doesNotContain("s3cr").contains("****");
    }

    @Test
    void readsPasswordOnlyUri() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://:hunter2@[::1]:6379"));
        assertThat(r.uri()).contains("redis://[::1]:6379/0");
        assertThat(r.user()).isEmpty();
        assertThat(r.password()).contains("hunter2");
    }

    @Test
    void takesCredentialsFromTheirOwnKeysWhenTheUriHasNone() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://localhost:6379",
                "sluice.redis.user", "app", "sluice.redis.password", "pw"));
        assertThat(r.user()).contains("app");
        assertThat(r.password()).contains("pw");
        assertThat(r.toString()).doesNotContain("pw,").doesNotContain("=pw");
    }

    @Test
    void readsSentinelSettings() {
        RedisSettings r = redis(Map.of("sluice.redis.sentinels", "s1:26379, s2:26379,[::1]:26380",
                "sluice.redis.master-name", "mymaster"));
        assertThat(r.mode()).isEqualTo(RedisSettings.Mode.SENTINEL);
        assertThat(r.sentinels()).containsExactly(new RedisAddress("s1", 26379), new RedisAddress("s2", 26379),
                new RedisAddress("::1", 26380));
        assertThat(r.sentinels().get(2)).hasToString("[::1]:26380");
        assertThat(r.masterName()).contains("mymaster");
        assertThat(r.uri()).isEmpty();
    }

    @Test
    void readsClusterNodes() {
        RedisSettings r = redis(Map.of("sluice.redis.cluster-nodes", "n1:7000,n2:7001,"));
        assertThat(r.mode()).isEqualTo(RedisSettings.Mode.CLUSTER);
        assertThat(r.clusterNodes()).containsExactly(new RedisAddress("n1", 7000), new RedisAddress("n2", 7001));
    }

    @Test
    void holdsTheServerAsHostAndPortIncludingContainerStyleNamesAndIpv6Literals() {
        assertThat(redis(Map.of("sluice.redis.uri", "redis://redis_1:6380/2")).address())
                .contains(new RedisAddress("redis_1", 6380));
        assertThat(redis(Map.of("sluice.redis.uri", "redis://cache/0")).address())
                .contains(new RedisAddress("cache", 6379));
        assertThat(redis(Map.of("sluice.redis.uri", "rediss://[::1]:7000/1")).address())
                .contains(new RedisAddress("::1", 7000));
    }

    @Test
    void readsRedlockNodesWithTheirOwnCredentials() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://app:6379", "sluice.redis.redlock-nodes",
                "redis://a:6379,redis://:pw@b:6379,rediss://c:6380/1", "sluice.redis.timeout", "750ms"));
        assertThat(r.redlockNodes()).extracting(RedisSettings::uri, RedisSettings::password).containsExactly(
                tuple(Optional.of("redis://a:6379/0"), Optional.empty()),
                tuple(Optional.of("redis://b:6379/0"), Optional.of("pw")),
                tuple(Optional.of("rediss://c:6380/1"), Optional.empty()));
        assertThat(r.redlockNodes()).allSatisfy(node -> {
            assertThat(node.mode()).isEqualTo(RedisSettings.Mode.STANDALONE);
            assertThat(node.timeout()).isEqualTo(Duration.ofMillis(750));
        });
        assertThat(r.toString()).doesNotContain("pw");
    }

    @Test
    void redlockNodesWithoutARedisForEverythingElseFailTheDeployment() {
        String message = rejects(Map.of("sluice.redis.redlock-nodes",
                "redis://a:6379,redis://:pw@b:6379,redis://c:6379"), "sluice.redis.redlock-nodes", "redis://a:6379");
        assertThat(message).contains("sluice.redis.uri").doesNotContain("pw@");
    }

    @Test
    void readsTimeoutAndPool() {
        RedisSettings r = redis(Map.of("sluice.redis.timeout", "750ms", "sluice.redis.pool.max-total", "8",
                "sluice.redis.pool.max-idle", "4", "sluice.redis.pool.min-idle", "2",
                "sluice.redis.pool.max-wait", "PT1S"));
        assertThat(r.timeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(r.pool()).isEqualTo(new RedisSettings.Pool(8, 4, 2, Duration.ofSeconds(1)));
    }

    @Test
    void pipelinesUnlessSwitchedOff() {
        assertThat(redis(Map.of("sluice.redis.uri", "redis://h:6379")).pipelining()).isTrue();
        assertThat(redis(Map.of("sluice.redis.pipelining", "FALSE")).pipelining()).isFalse();
        String message = rejects(Map.of("sluice.redis.pipelining", "off"), "sluice.redis.pipelining", "\"off\"");
        assertThat(message).contains("true or false");
    }

    @Test
    void rejectsUriWithoutScheme() {
        rejects(Map.of("sluice.redis.uri", "redis//host:6379"), "sluice.redis.uri", "\"redis//host:6379\"");
    }

    @Test
    void rejectsHttpUri() {
        String message = rejects(Map.of("sluice.redis.uri", "http://x"), "sluice.redis.uri", "\"http://x\"");
        assertThat(message).contains("redis://[user:password@]host:port[/db]");
    }

    @Test
    void rejectsPortOutOfRange() {
        rejects(Map.of("sluice.redis.uri", "redis://host:70000"), "sluice.redis.uri", "\"redis://host:70000\"");
    }

    @Test
    void rejectsPortZero() {
        rejects(Map.of("sluice.redis.uri", "redis://host:0"), "sluice.redis.uri", "\"redis://host:0\"");
    }

    @Test
    void rejectsNonNumericDatabase() {
        rejects(Map.of("sluice.redis.uri", "redis://host:6379/zero"), "sluice.redis.uri",
                "\"redis://host:6379/zero\"");
    }

    @Test
    void rejectsQueryParameters() {
        rejects(Map.of("sluice.redis.uri", "redis://host:6379?ssl=true"), "sluice.redis.uri",
                "\"redis://host:6379?ssl=true\"");
    }

    @Test
    void masksCredentialsOfAMalformedUri() {
        String message = rejects(Map.of("sluice.redis.uri", "redis://bob:topsecret@host:99999"),
                "sluice.redis.uri", "\"redis://****@host:99999\"");
        assertThat(message).doesNotContain("topsecret").doesNotContain("bob");
    }

    @Test
    void rejectsCredentialsWithoutColonInsteadOfGuessingWhatTheyAre() {
        String message = rejects(Map.of("sluice.redis.uri", "redis://topsecret@host:6379"),
                "sluice.redis.uri", "\"redis://****@host:6379\"");
        assertThat(message).doesNotContain("topsecret").contains(":password@");
    }

    @Test
    void rejectsPasswordGivenTwiceWithoutShowingEither() {
        Throwable e = catchThrowable(() -> redis(Map.of("sluice.redis.uri", "redis://:one@host:6379",
                "sluice.redis.password", "two")));
        assertThat(e).hasMessageStartingWith("sluice.redis.password:").hasMessageContaining("sluice.redis.uri");
        assertThat(e.getMessage()).doesNotContain("one@").doesNotContain("\"two\"");
    }

    @Test
    void rejectsSentinelsWithoutMasterName() {
        rejects(Map.of("sluice.redis.sentinels", "s1:26379"), "sluice.redis.master-name", "\"s1:26379\"");
    }

    @Test
    void rejectsMasterNameWithoutSentinels() {
        rejects(Map.of("sluice.redis.master-name", "mymaster"), "sluice.redis.master-name", "\"mymaster\"");
    }

    @Test
    void rejectsSentinelWithoutPort() {
        rejects(Map.of("sluice.redis.sentinels", "s1:26379,s2", "sluice.redis.master-name", "m"),
                "sluice.redis.sentinels", "\"s1:26379,s2\"");
    }

    @Test
    void rejectsClusterNodeWithBadPort() {
        String message = rejects(Map.of("sluice.redis.cluster-nodes", "n1:7000,n2:port"),
                "sluice.redis.cluster-nodes", "\"n1:7000,n2:port\"");
        assertThat(message).contains("1 to 65535");
    }

    @Test
    void rejectsUriTogetherWithClusterNodes() {
        String message = rejects(Map.of("sluice.redis.uri", "redis://h:1", "sluice.redis.cluster-nodes", "n1:7000"),
                "sluice.redis.cluster-nodes", "\"n1:7000\"");
        assertThat(message).contains("sluice.redis.uri");
    }

    @Test
    void rejectsRedlockOverFewerThanThreeMasters() {
        rejects(Map.of("sluice.redis.redlock-nodes", "redis://a:6379,redis://b:6379"),
                "sluice.redis.redlock-nodes", "\"redis://a:6379,redis://b:6379\"");
    }

    @Test
    void rejectsRedlockNodeListedTwice() {
        rejects(Map.of("sluice.redis.redlock-nodes", "redis://a:6379,redis://b:6379,redis://a:6379/1"),
                "sluice.redis.redlock-nodes", "\"redis://a:6379,redis://b:6379,redis://a:6379/1\"");
    }

    @Test
    void rejectsZeroTimeout() {
        rejects(Map.of("sluice.redis.timeout", "0s"), "sluice.redis.timeout", "\"0s\"");
    }

    @Test
    void rejectsSubMillisecondTimeoutThatJedisWouldReadAsForever() {
        rejects(Map.of("sluice.redis.timeout", "PT0.0001S"), "sluice.redis.timeout", "\"PT0.0001S\"");
    }

    @Test
    void rejectsZeroPoolSize() {
        rejects(Map.of("sluice.redis.pool.max-total", "0"), "sluice.redis.pool.max-total", "\"0\"");
    }

    @Test
    void rejectsNonNumericPoolSize() {
        rejects(Map.of("sluice.redis.pool.max-idle", "many"), "sluice.redis.pool.max-idle", "\"many\"");
    }

    @Test
    void rejectsMinIdleAboveMaxIdle() {
        rejects(Map.of("sluice.redis.pool.max-idle", "4", "sluice.redis.pool.min-idle", "8"),
                "sluice.redis.pool.min-idle", "\"8\"");
    }

    @Test
    void rejectsNegativePoolMaxWait() {
        rejects(Map.of("sluice.redis.pool.max-wait", "-5s"), "sluice.redis.pool.max-wait", "\"-5s\"");
    }
    @Test
    void tlsIsOffByDefaultAndOnWithRedissOrTheKey() {
        assertThat(redis(Map.of("sluice.redis.uri", "redis://h:6379")).tls()).isFalse();
        assertThat(redis(Map.of("sluice.redis.uri", "rediss://h:6379")).tls()).isTrue();
        assertThat(redis(Map.of("sluice.redis.uri", "rediss://h:6379", "sluice.redis.tls", "true")).tls()).isTrue();
        RedisSettings forced = redis(Map.of("sluice.redis.uri", "redis://h:6379", "sluice.redis.tls", "TRUE"));
        assertThat(forced.tls()).isTrue();
        assertThat(forced.uri()).contains("rediss://h:6379/0");
    }

    @Test
    void tlsCoversSentinelsAndClusterNodes() {
        assertThat(redis(Map.of("sluice.redis.sentinels", "s1:26379,s2:26379", "sluice.redis.master-name", "m",
                "sluice.redis.tls", "true")).tls()).isTrue();
        assertThat(redis(Map.of("sluice.redis.cluster-nodes", "n1:7000", "sluice.redis.tls", "true")).tls()).isTrue();
        assertThat(redis(Map.of("sluice.redis.cluster-nodes", "n1:7000")).tls()).isFalse();
    }

    @Test
    void tlsTurnsEveryRedlockMasterToTlsAndKeepsTheirCredentials() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://app:6379",
                "sluice.redis.redlock-nodes", "redis://a:6379,redis://:p%40w@b:6379,rediss://c:6380",
                "sluice.redis.tls", "true"));
        assertThat(r.redlockNodes()).extracting(RedisSettings::uri, RedisSettings::password).containsExactly(
                tuple(Optional.of("rediss://a:6379/0"), Optional.empty()),
                tuple(Optional.of("rediss://b:6379/0"), Optional.of("p@w")),
                tuple(Optional.of("rediss://c:6380/0"), Optional.empty()));
        assertThat(r.redlockNodes()).allSatisfy(node -> assertThat(node.tls()).isTrue());
        assertThat(redis(Map.of("sluice.redis.uri", "redis://app:6379",
                "sluice.redis.redlock-nodes", "redis://a:6379,redis://b:6379,rediss://c:6380"))
                .redlockNodes()).extracting(RedisSettings::uri).containsExactly(Optional.of("redis://a:6379/0"),
                        Optional.of("redis://b:6379/0"), Optional.of("rediss://c:6380/0"));
    }

    @Test
    void tlsFalseWithARedissUriFailsNamingTheKeyTheValueAndTheForm() {
        String message = rejects(Map.of("sluice.redis.uri", "rediss://:secret@h:6380", "sluice.redis.tls", "false"),
                "sluice.redis.tls", "\"false\"");
        assertThat(message).contains("rediss://****@h:6380").contains("expected true").doesNotContain("secret");
    }

    @Test
    void tlsFalseWithARedissRedlockMasterFails() {
        String message = rejects(Map.of("sluice.redis.redlock-nodes", "redis://a:1,redis://b:2,rediss://c:3",
                "sluice.redis.tls", "false"), "sluice.redis.tls", "\"false\"");
        assertThat(message).contains("sluice.redis.redlock-nodes");
    }

    @Test
    void tlsAcceptsOnlyTrueOrFalse() {
        String message = rejects(Map.of("sluice.redis.uri", "redis://h:6379", "sluice.redis.tls", "yes"),
                "sluice.redis.tls", "\"yes\"");
        assertThat(message).contains("true or false");
    }
    @Test
    void decodesEveryPercentEncodedByteOfTheCredentials() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://%41l%69ce:%7e%2F%c3%A9%5A%09@h:6379"));
        assertThat(r.user()).contains("Alice");
        assertThat(r.password()).contains("~/\u00e9Z\t");
    }

    @Test
    void keepsCharactersOutsideTheBasicPlaneOfUnencodedCredentials() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://u:p\uD83D\uDE00w@h:6379"));
        assertThat(r.password()).contains("p\uD83D\uDE00w");
    }

    @Test
    void anEmptyPasswordInTheUriMeansNone() {
        RedisSettings r = redis(Map.of("sluice.redis.uri", "redis://alice:@h:6379"));
        assertThat(r.user()).contains("alice");
        assertThat(r.password()).isEmpty();
    }

    @Test
    void readsDatabasesWithTheDigitsZeroAndNineUpToNineDigits() {
        assertThat(redis(Map.of("sluice.redis.uri", "redis://h/90")).database()).isEqualTo(90);
        assertThat(redis(Map.of("sluice.redis.uri", "redis://h/123456789")).database()).isEqualTo(123_456_789);
        rejects(Map.of("sluice.redis.uri", "redis://h/1234567890"), "sluice.redis.uri", "redis://h/1234567890");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"redis://?db=1", "redis://#x", "redis://h?db=1"})
    void rejectsAQueryOrFragmentWhereverItStarts(String uri) {
        assertThat(rejects(Map.of("sluice.redis.uri", uri), "sluice.redis.uri", uri)).contains("no query or fragment");
    }

    @Test
    void describesAUriWithoutItsCredentials() {
        String shown = RedisUri.parse("sluice.redis.uri", "redis://u:secret@h:6380/2").toString();
        assertThat(shown).isEqualTo("redis://h:6380/2 (with credentials)");
        assertThat(RedisUri.parse("sluice.redis.uri", "redis://h").toString()).isEqualTo("redis://h:6379/0");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"pw%4", "pw%", "pw%G1", "pw%1G"})
    void rejectsABrokenPercentEncodingWithoutShowingThePassword(String password) {
        String message = rejects(Map.of("sluice.redis.uri", "redis://u:" + password + "@h:6379"), "sluice.redis.uri",
                "****@h:6379");
        assertThat(message).doesNotContain(password).contains("%XX");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} with {2}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "sluice.redis.uri|redis://:pw@h:1|sluice.redis.sentinels|s1:26379",
            "sluice.redis.uri|redis://:pw@h:1|sluice.redis.cluster-nodes|n1:7000",
            "sluice.redis.sentinels|s1:26379|sluice.redis.cluster-nodes|n1:7000"})
    void rejectsEveryPairOfTopologyKeys(String first, String firstValue, String second, String secondValue) {
        Map<String, String> values = new java.util.HashMap<>(Map.of(first, firstValue, second, secondValue));
        if (values.containsKey("sluice.redis.sentinels")) {
            values.put("sluice.redis.master-name", "m");
        }
        SluiceConfigException e = catchThrowableOfType(SluiceConfigException.class, () -> redis(values));
        assertThat(e).as("%s together with %s", first, second).isNotNull();
        assertThat(e.getMessage()).contains(first).contains(second).doesNotContain(":pw@")
                .contains("only one of sluice.redis.uri, sluice.redis.sentinels and sluice.redis.cluster-nodes");
    }
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"redis://[::1]x", "redis://[::1]x:6379", "redis://[::1"})
    void rejectsAnythingButAPortAfterABracketedAddress(String uri) {
        rejects(Map.of("sluice.redis.uri", uri), "sluice.redis.uri", uri);
    }
}
