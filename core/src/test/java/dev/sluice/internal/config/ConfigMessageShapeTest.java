package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every configuration error reads the same way: the key, the value quoted as written, what is wrong, and
 * what is accepted after "; expected ".
 */
class ConfigMessageShapeTest {

    static Stream<Arguments> badConfigurations() {
        return Stream.of(
                arguments(Map.of("sluice.limit.bad!name.rate", "10/1s"), "sluice.limit.bad!name.rate", "bad!name"),
                arguments(Map.of("sluice.redis.pool.min-idle", "5", "sluice.redis.pool.max-idle", "2"),
                        "sluice.redis.pool.min-idle", "5"),
                arguments(Map.of("sluice.redis.master-name", "mymaster"), "sluice.redis.master-name", "mymaster"),
                arguments(Map.of("sluice.redis.uri", "redis://a:6379", "sluice.redis.cluster-nodes", "b:7000"),
                        "sluice.redis.cluster-nodes", "b:7000"),
                arguments(Map.of("sluice.redis.tls", "false", "sluice.redis.uri", "rediss://a:6379"),
                        "sluice.redis.tls", "false"),
                arguments(Map.of("sluice.redis.redlock-nodes", "redis://a:6379,redis://b:6379"),
                        "sluice.redis.redlock-nodes", "redis://a:6379,redis://b:6379"),
                arguments(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.key", "cookie"),
                        "sluice.limit.api.key", "cookie"),
                arguments(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.paths", "/a,b"),
                        "sluice.limit.api.paths", "/a,b"),
                arguments(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.methods", "GET,G E T"),
                        "sluice.limit.api.methods", "GET,G E T"),
                arguments(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.key", "path-param:id",
                        "sluice.limit.api.paths", "/orders/*"), "sluice.limit.api.key", "path-param:id"));
    }

    @ParameterizedTest
    @MethodSource("badConfigurations")
    void aBadValueIsNamedByItsKeyQuotedAsWrittenAndFollowedByTheAcceptedForm(Map<String, String> values,
            String key, String value) {
        SluiceConfigException e = catchThrowableOfType(SluiceConfigException.class,
                () -> SluiceConfigLoader.load(ConfigSources.of(values)));

        assertThat(e).isNotNull();
        assertThat(e.key()).isEqualTo(key);
        assertThat(e.getMessage()).startsWith(key + ": \"" + value + "\" ").containsPattern("; expected \\S");
    }

    @Test
    void aValueThatConflictsWithAnotherKeyQuotesBoth() {
        SluiceConfigException e = catchThrowableOfType(SluiceConfigException.class, () -> SluiceConfigLoader.load(
                ConfigSources.of(Map.of("sluice.redis.pool.min-idle", "5", "sluice.redis.pool.max-idle", "2"))));

        assertThat(e.getMessage()).isEqualTo("sluice.redis.pool.min-idle: \"5\" is more than"
                + " sluice.redis.pool.max-idle \"2\"; expected a whole number from 0 to 2");
    }

    @Test
    void aRejectedPolicyNameIsQuotedRightAfterTheKey() {
        SluiceConfigException e = catchThrowableOfType(SluiceConfigException.class, () -> SluiceConfigLoader.load(
                ConfigSources.of(Map.of("sluice.limit.bad!name.rate", "10/1s"))));

        assertThat(e.getMessage()).isEqualTo("sluice.limit.bad!name.rate: \"bad!name\" is not an accepted policy"
                + " name; expected 1 to 64 characters from A-Z a-z 0-9 _ - (the name is part of Redis keys)");
    }

    @Test
    void anAnnotationMemberProblemTakesTheValueProblemOfItsParser() {
        SluiceConfigException parsed = catchThrowableOfType(SluiceConfigException.class,
                () -> Durations.parse("@Locked.lease", "ten seconds"));

        SluiceConfigException e = ConfigProblems.onMethod("@Locked.lease", " on com.x.Y#m()", parsed);

        assertThat(e.key()).isEqualTo("@Locked.lease");
        assertThat(e.getMessage()).startsWith("Invalid @Locked.lease on com.x.Y#m(): \"ten seconds\" is invalid;"
                + " expected ");
    }
}
