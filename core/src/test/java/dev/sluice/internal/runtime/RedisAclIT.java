package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.RateLimitDecision;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis ACL user operations documents for Sluice ({@link #ACL_RULES}, in {@code docs/operations.md}): every
 * feature works under it (rate limits, locks with waiters woken by release messages, semaphores, lease renewal,
 * the health ping, the connection pool's idle checks) without a single denial in {@code ACL LOG}, and it is
 * minimal: without any one of its command permissions, something Sluice does is denied.
 */
class RedisAclIT {

    /**
     * What {@code ACL SETUSER sluice on >password} needs after it, for the default key prefix {@code sluice}. Keep it
     * equal to the line in docs/operations.md.
     */
    static final List<String> ACL_RULES = List.of("resetkeys", "~sluice:*", "resetchannels", "&sluice:*", "-@all",
            "+ping", "+client|setname", "+evalsha", "+script|load", "+subscribe", "+unsubscribe",
            "+time", "+get", "+set", "+del", "+pexpire", "+pexpireat", "+pttl", "+publish",
            "+zadd", "+zcard", "+zrange", "+zrem", "+zremrangebyscore", "+zscore");

    private static final String PASSWORD = "Acl-pw-2b7e91";

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;

    @BeforeEach
    void resetAclLog() {
        acl("LOG", "RESET");
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
        acl("DELUSER", "sluice");
    }

    @Test
    void everythingSluiceDoesWorksUnderTheDocumentedAclUserWithoutOneDenial() throws Exception {
        createUser(ACL_RULES);
        runtime = SluiceRuntime.start(config());
        exercise(runtime);
        runtime.close();
        runtime = null;

        assertThat(aclLog()).as("ACL LOG").isEmpty();
    }

    @Test
    void everyCommandOfTheAclLineIsNeeded() {
        List<String> unused = new ArrayList<>();
        for (String rule : ACL_RULES) {
            if (!rule.startsWith("+")) {
                continue;
            }
            List<String> without = new ArrayList<>(ACL_RULES);
            without.remove(rule);
            acl("LOG", "RESET");
            REDIS.flushAll();
            createUser(without);
            try (SluiceRuntime r = SluiceRuntime.start(config())) {
                exercise(r);
            } catch (Exception | AssertionError expected) {
                // Refused at startup (NOPERM) or while running: either way the rule was needed.
            }
            if (aclLog().isEmpty()) {
                unused.add(rule);
            }
            acl("DELUSER", "sluice");
        }
        assertThat(unused).as("rules nothing was denied without").isEmpty();
    }

    @Test
    void aUserMissingAPermissionFailsTheDeploymentNamingTheUserKey() {
        List<String> without = new ArrayList<>(ACL_RULES);
        without.remove("+script|load");
        createUser(without);

        assertThatThrownBy(() -> SluiceRuntime.start(config()))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sluice.redis.user");
                    assertThat(e.getMessage()).contains("NOPERM").doesNotContain(PASSWORD);
                });
    }

    @Test
    void aWrongPasswordFailsTheDeploymentAtStartupNamingThePasswordKeyAndNotShowingIt() {
        createUser(ACL_RULES);
        Map<String, String> values = new HashMap<>(Map.of("sluice.redis.uri",
                REDIS.uri().replace("redis://", "redis://sluice:Wrong-" + PASSWORD + "@")));

        assertThatThrownBy(() -> SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(values))))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sluice.redis.password");
                    assertThat(e.getMessage()).contains("WRONGPASS", "user \"sluice\"", REDIS.port() + "")
                            .doesNotContain(PASSWORD);
                });
    }

    /**
     * Rate limits, a lock two nodes contend for (the waiter is refused with the holder's remaining lease, then woken
     * by the release message), lease renewal and extension, a semaphore.
     */
    static void exercise(SluiceRuntime runtime) throws Exception {
        try (SluiceRuntime otherNode = SluiceRuntime.start(runtime.config())) {
            exercise(runtime, otherNode);
        }
    }

    private static void exercise(SluiceRuntime runtime, SluiceRuntime otherNode) throws Exception {
        PolicyConfig strict = runtime.config().policy("strict").orElseThrow();
        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RateLimitDecision d = runtime.rateLimits().decide(strict, "192.0.2.1", 1);
            allowed.add(d.allowed());
        }
        assertThat(allowed).containsExactly(true, true, true, false);
        assertThat(runtime.redis().orElseThrow().ping()).as("health ping").isTrue();

        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            long token;
            Future<Long> waiter;
            try (LockHandle held = runtime.locks().lock("order:42").acquire(Duration.ofMillis(150), Duration.ZERO)) {
                token = held.fencingToken();
                waiter = other.submit(() -> {
                    try (LockHandle next = otherNode.locks().lock("order:42").acquire(Duration.ofSeconds(5),
                            Duration.ofSeconds(5))) {
                        return next.fencingToken();
                    }
                });
                // Held for more than a lease: the watchdog must renew it.
                TimeUnit.MILLISECONDS.sleep(200);
                assertThat(held.isHeld()).isTrue();
                assertThat(held.extend(Duration.ofMillis(150))).isTrue();
            }
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(token);
        } finally {
            other.shutdownNow();
        }
        try (Permit permit = runtime.locks().semaphore("pdf", 1).acquire(Duration.ofMillis(150), Duration.ZERO)) {
            assertThat(runtime.locks().semaphore("pdf", 1).tryAcquire(Duration.ofSeconds(1))).isEmpty();
            TimeUnit.MILLISECONDS.sleep(200);
            assertThat(permit.isHeld()).isTrue();
        }
    }

    private static SluiceConfig config() {
        return SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.redis.user", "sluice",
                "sluice.redis.password", PASSWORD,
                "sluice.limit.strict.rate", "3/1h")));
    }

    private static void createUser(List<String> rules) {
        List<Object> args = new ArrayList<>(List.of("SETUSER", "sluice", "reset", "on", ">" + PASSWORD));
        args.addAll(rules);
        acl(args.toArray());
    }

    /** The denials logged since the last {@code ACL LOG RESET}, one line each. */
    private static List<String> aclLog() {
        Object reply = acl("LOG");
        List<String> entries = new ArrayList<>();
        for (Object entry : (List<?>) reply) {
            List<?> fields = (List<?>) entry;
            Map<String, String> map = new HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                map.put(text(fields.get(i)), text(fields.get(i + 1)));
            }
            entries.add(map.get("reason") + " " + map.get("object") + " by " + map.get("username") + " ("
                    + map.get("context") + ")");
        }
        return entries;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(o);
    }

    private static Object acl(Object... args) {
        UnifiedJedis admin = REDIS.admin();
        return admin.executeCommand(new CommandArguments(Protocol.Command.ACL).addObjects(args));
    }
}
