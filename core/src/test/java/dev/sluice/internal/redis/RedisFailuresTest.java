package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;

import org.junit.jupiter.api.Test;

import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import javax.net.ssl.SSLHandshakeException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis failures are the operator's configuration (they fail the deployment, naming the key to fix), which
 * are overload rather than an outage, and how a failure reads in a log line.
 */
class RedisFailuresTest {

    private static final String WHERE = "127.0.0.1:6390";

    private static RedisSettings standalone(Optional<String> user, Optional<String> password) {
        return new RedisSettings(Optional.of(new RedisAddress("127.0.0.1", 6390)), List.of(), Optional.empty(), List.of(), List.of(),
                user, password, 0, false, RedisSettings.DEFAULT_TIMEOUT, RedisSettings.Pool.DEFAULT, true);
    }

    private static final RedisSettings PLAIN = standalone(Optional.empty(), Optional.empty());
    private static final RedisSettings ALICE = standalone(Optional.of("alice"), Optional.of("s3cret"));
    private static final RedisSettings SENTINEL = new RedisSettings(Optional.empty(), List.of(new RedisAddress("127.0.0.1", 26379)),
            Optional.of("mymaster"), List.of(), List.of(), Optional.empty(), Optional.empty(), 0, true,
            RedisSettings.DEFAULT_TIMEOUT, RedisSettings.Pool.DEFAULT, true);
    private static final RedisSettings CLUSTER = new RedisSettings(Optional.empty(), List.of(), Optional.empty(),
            List.of(new RedisAddress("127.0.0.1", 7000)), List.of(), Optional.empty(), Optional.empty(), 0, true,
            RedisSettings.DEFAULT_TIMEOUT, RedisSettings.Pool.DEFAULT, true);

    private static SluiceConfigException problem(Throwable failure, RedisSettings settings) {
        Optional<SluiceConfigException> problem = RedisFailures.asConfigProblem(failure, settings, WHERE);
        assertThat(problem).as("a configuration problem in %s", failure).isPresent();
        assertThat(problem.get().getCause()).as("Redis's own error is kept as the cause").isSameAs(failure);
        return problem.get();
    }

    @Test
    void aRedisErrorIsKnownByItsCodeTheFirstWordOfTheReply() {
        assertThat(RedisFailures.errorCode(new JedisDataException("NOSCRIPT No matching script."))).hasValue("NOSCRIPT");
        assertThat(RedisFailures.errorCode(new JedisDataException("NOSCRIPT"))).hasValue("NOSCRIPT");
        assertThat(RedisFailures.errorCode(new JedisAccessControlException("NOPERM User sluice has no permissions")))
                .hasValue("NOPERM");
        assertThat(RedisFailures.errorCode(new JedisDataException("an error of Jedis's own"))).isEmpty();
        assertThat(RedisFailures.errorCode(new JedisConnectionException("NOAUTH in a connection failure's text")))
                .as("not a reply of the server").isEmpty();
    }

    @Test
    void repliesWordedOtherwiseThanRedisWordsThemAreReadByTheirCode() {
        // Valkey words some replies differently from Redis (Symfony Lock broke on its shorter NOSCRIPT message).
        assertThat(RedisFailures.isOverload(new JedisDataException("OOM no memory left"))).isTrue();
        assertThat(RedisFailures.isOverload(new JedisDataException("ERR a script said: OOM command not allowed")))
                .as("the words of an OOM reply after another code").isFalse();
        assertThat(problem(new JedisDataException("WRONGPASS"), ALICE).key()).isEqualTo("sluice.redis.password");
        assertThat(problem(new JedisDataException("NOAUTH"), PLAIN).key()).isEqualTo("sluice.redis.password");
        assertThat(problem(new JedisDataException("NOPERM"), ALICE).key()).isEqualTo("sluice.redis.user");
        assertThat(RedisFailures.asConfigProblem(new JedisDataException("ERR WRONGPASS is a word in this text"),
                ALICE, WHERE)).isEmpty();
    }

    @Test
    void aRejectedPasswordNamesThePasswordKeyAndTheUser() {
        SluiceConfigException e = problem(new JedisDataException("WRONGPASS invalid username-password pair"), ALICE);
        assertThat(e.key()).isEqualTo("sluice.redis.password");
        assertThat(e.getMessage()).startsWith("sluice.redis.password: Redis at " + WHERE)
                .contains("user \"alice\"", "WRONGPASS").doesNotContain("s3cret");

        assertThat(problem(new JedisDataException("WRONGPASS invalid username-password pair"), PLAIN).getMessage())
                .contains("the default user");
    }

    @Test
    void aMissingPasswordNamesThePasswordKey() {
        SluiceConfigException e = problem(new JedisDataException("NOAUTH Authentication required."), PLAIN);
        assertThat(e.key()).isEqualTo("sluice.redis.password");
        assertThat(e.getMessage()).contains("requires a password (NOAUTH) and none is configured");
    }

    @Test
    void aPasswordForARedisWithoutOneNamesThePasswordKey() {
        SluiceConfigException e = problem(new JedisDataException("ERR AUTH <password> called without any password "
                + "configured for the default user. Are you sure your configuration is correct?"), ALICE);
        assertThat(e.key()).isEqualTo("sluice.redis.password");
        assertThat(e.getMessage()).contains("has no password configured, but one is set");
    }

    @Test
    void aMissingPermissionNamesTheUserKeyWithThePasswordMasked() {
        SluiceConfigException e = problem(new JedisDataException("NOPERM this user has no permissions to run the "
                + "'evalsha' command (s3cret)"), ALICE);
        assertThat(e.key()).isEqualTo("sluice.redis.user");
        assertThat(e.getMessage()).contains("does not let user \"alice\" run", "evalsha", "(****)")
                .doesNotContain("s3cret");

        assertThat(problem(new JedisAccessControlException("denied"), PLAIN).key())
                .as("Jedis's ACL exception whatever its text").isEqualTo("sluice.redis.user");
    }

    @Test
    void aFailedTlsHandshakeNamesTheKeyOfTheAddressesOfTheMode() {
        SSLHandshakeException handshake = new SSLHandshakeException("PKIX path building failed");
        assertThat(problem(handshake, PLAIN).key()).isEqualTo("sluice.redis.uri");
        assertThat(problem(handshake, SENTINEL).key()).isEqualTo("sluice.redis.sentinels");
        assertThat(problem(handshake, CLUSTER).key()).isEqualTo("sluice.redis.cluster-nodes");
        assertThat(problem(handshake, PLAIN).getMessage()).contains("the TLS handshake with " + WHERE
                + " failed (PKIX path building failed)");
    }

    @Test
    void anUnmonitoredMasterNameNamesTheMasterNameKeyAndValue() {
        SluiceConfigException e = problem(new JedisConnectionException("All sentinels down, cannot determine where "
                + "is mymaster master is running... Or master seems to be not monitored"), SENTINEL);
        assertThat(e.key()).isEqualTo("sluice.redis.master-name");
        assertThat(e.getMessage()).contains("\"mymaster\"", "127.0.0.1:26379");
    }

    @Test
    void theProblemIsFoundAmongCausesAndSuppressedExceptions() {
        JedisConnectionException outer = new JedisConnectionException("Could not initialize cluster slots cache.");
        JedisConnectionException node = new JedisConnectionException("node 1 failed",
                new JedisDataException("NOAUTH Authentication required."));
        outer.addSuppressed(new JedisConnectionException("node 0 refused"));
        outer.addSuppressed(node);

        assertThat(problem(outer, CLUSTER).key()).isEqualTo("sluice.redis.password");
    }

    @Test
    void anOutageIsNoConfigurationProblem() {
        JedisConnectionException refused = new JedisConnectionException("Failed to connect",
                new java.net.ConnectException("Connection refused"));
        assertThat(RedisFailures.asConfigProblem(refused, PLAIN, WHERE)).isEmpty();
        assertThat(RedisFailures.asConfigProblem(new JedisConnectionException((String) null), PLAIN, WHERE))
                .as("no message at all").isEmpty();
    }

    @Test
    void onlyAnExhaustedPoolMeansTheCallNeverLeftTheNode() {
        assertThat(RedisFailures.isPoolExhausted(new JedisConnectionException("Could not get a resource from the pool",
                new NoSuchElementException("Timeout waiting for idle object")))).isTrue();
        assertThat(RedisFailures.isPoolExhausted(new NoSuchElementException("Pool exhausted"))).isTrue();
        assertThat(RedisFailures.isPoolExhausted(new JedisDataException("OOM command not allowed when used memory > "
                + "'maxmemory'."))).isFalse();
        assertThat(RedisFailures.isPoolExhausted(new JedisConnectionException("Read timed out"))).isFalse();
    }

    @Test
    void anExhaustedPoolOrAFullRedisIsOverloadNotAnOutage() {
        assertThat(RedisFailures.isOverload(new JedisConnectionException("Could not get a resource from the pool",
                new NoSuchElementException("Timeout waiting for idle object")))).isTrue();
        assertThat(RedisFailures.isOverload(new NoSuchElementException("Pool exhausted"))).isTrue();
        assertThat(RedisFailures.isOverload(new JedisConnectionException("Could not get a resource from the pool")))
                .isTrue();
        assertThat(RedisFailures.isOverload(new JedisDataException("OOM command not allowed when used memory > "
                + "'maxmemory'."))).isTrue();
        JedisConnectionException wrapped = new JedisConnectionException("pipeline failed");
        wrapped.addSuppressed(new JedisDataException("OOM command not allowed when used memory > 'maxmemory'."));
        assertThat(RedisFailures.isOverload(wrapped)).as("found among suppressed exceptions").isTrue();

        assertThat(RedisFailures.isOverload(new JedisConnectionException("Connection refused"))).isFalse();
        assertThat(RedisFailures.isOverload(new JedisConnectionException((String) null))).isFalse();
    }

    @Test
    void aLogLineListsEachMessageOfTheChainOnceWithThePasswordMasked() {
        IllegalStateException root = new IllegalStateException("AUTH s3cret refused");
        JedisConnectionException failure = new JedisConnectionException("Failed to connect", root);
        failure.addSuppressed(new RuntimeException((String) null));
        failure.addSuppressed(root);

        assertThat(RedisFailures.describe(failure, ALICE)).isEqualTo("JedisConnectionException: Failed to connect; "
                + "IllegalStateException: AUTH **** refused");
        assertThat(RedisFailures.describe(failure, PLAIN)).as("nothing to mask").contains("AUTH s3cret refused");
        assertThat(RedisFailures.describe(new RuntimeException((String) null), ALICE)).isEmpty();
    }

    @Test
    void anEmptyPasswordMasksNothing() {
        RedisSettings empty = standalone(Optional.of("bob"), Optional.of(""));
        assertThat(RedisFailures.redact("a b", empty)).isEqualTo("a b");
    }
}
