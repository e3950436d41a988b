package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.RateLimitDecision;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.lock.LockService;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
            "+time", "+get", "+mget", "+set", "+del", "+pexpire", "+pexpireat", "+pttl", "+publish",
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
        exercise(runtime, () -> REDIS.commandCount("evalsha"));
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
                exercise(r, () -> REDIS.commandCount("evalsha"));
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

    @Test
    void theLineInTheOperationsGuideIsTheOneTestedHere() throws Exception {
        Path guide = Path.of("..", "docs", "operations.md");
        Assumptions.assumeTrue(Files.isRegularFile(guide), "docs/operations.md is not next to this module");
        String documented = Files.readAllLines(guide).stream().filter(l -> l.startsWith("ACL SETUSER sluice on "))
                .findFirst().orElseThrow();
        assertThat(documented).isEqualTo("ACL SETUSER sluice on >CHANGE-ME " + String.join(" ", ACL_RULES));
        assertThat(Files.readString(guide)).contains("add `" + String.join(" ", RedisClusterAclIT.CLUSTER_RULES) + "`");
    }

    /**
     * Rate limits, the health ping, a lock two nodes contend for (the waiter is refused with the holder's remaining
     * lease, then woken by the release message), a lock extension, a semaphore with a refused contender and a
     * renewal. Every part runs even when an earlier one failed (a missing permission breaks one part, and the
     * others must still show what they need); the failures are thrown together at the end.
     *
     * @param evalshaCalls how many EVALSHA the server(s) ran so far, to wait for the watchdog's renewal without
     *                     guessing how long it takes
     */
    static void exercise(SluiceRuntime runtime, LongSupplier evalshaCalls) throws Exception {
        List<Throwable> failures = new ArrayList<>();
        try (SluiceRuntime otherNode = SluiceRuntime.start(runtime.config())) {
            part(failures, () -> rateLimits(runtime));
            part(failures, () -> assertThat(runtime.redis().orElseThrow().ping()).as("health ping").isTrue());
            part(failures, () -> lockHandOver(runtime, otherNode, evalshaCalls));
            part(failures, () -> localHandOver(runtime));
            part(failures, () -> semaphore(runtime, otherNode, evalshaCalls));
        }
        if (!failures.isEmpty()) {
            AssertionError all = new AssertionError(failures.size() + " part(s) failed: " + failures);
            failures.forEach(all::addSuppressed);
            throw all;
        }
    }

    private interface Part {
        void run() throws Exception;
    }

    private static void part(List<Throwable> failures, Part part) {
        try {
            part.run();
        } catch (Exception | AssertionError e) {
            failures.add(e);
        }
    }

    private static void rateLimits(SluiceRuntime runtime) {
        PolicyConfig strict = runtime.config().policy("strict").orElseThrow();
        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RateLimitDecision d = runtime.rateLimits().decide(strict, "192.0.2.1", 1);
            allowed.add(d.allowed());
        }
        assertThat(allowed).containsExactly(true, true, true, false);
    }

    private static void lockHandOver(SluiceRuntime runtime, SluiceRuntime otherNode, LongSupplier evalshaCalls)
            throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            long token;
            Future<Long> waiter;
            try (LockHandle held = runtime.locks().lock("order:42").acquire(Duration.ofSeconds(5), Duration.ZERO)) {
                token = held.fencingToken();
                assertThat(held.extend(Duration.ofSeconds(5))).as("extend").isTrue();
                long before = evalshaCalls.getAsLong();
                waiter = other.submit(() -> {
                    try (LockHandle next = otherNode.locks().lock("order:42").acquire(Duration.ofSeconds(5),
                            Duration.ofSeconds(5))) {
                        return next.fencingToken();
                    }
                });
                // Released only once the other node has been refused once (that attempt reads the remaining lease).
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                        .until(() -> evalshaCalls.getAsLong() > before);
            }
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(token);
        } finally {
            other.shutdownNow();
        }
    }

    /** A lock passed from its holder to a thread of the same node queued behind it (lock-acquire.lua given the holder). */
    private static void localHandOver(SluiceRuntime runtime) throws Exception {
        LockService locks = runtime.locks();
        String storeKey = locks.lockKey("invoice:7");
        ExecutorService sameNode = Executors.newSingleThreadExecutor();
        try {
            long token;
            Future<Long> next;
            try (LockHandle held = locks.lock("invoice:7").acquire(Duration.ofSeconds(30), Duration.ZERO)) {
                token = held.fencingToken();
                next = sameNode.submit(() -> {
                    try (LockHandle h = locks.lock("invoice:7").acquire(Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                        return h.fencingToken();
                    }
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> locks.queued(storeKey) == 1);
            }
            assertThat(next.get(10, TimeUnit.SECONDS)).as("local hand-off").isGreaterThan(token);
        } finally {
            sameNode.shutdownNow();
        }
    }

    private static void semaphore(SluiceRuntime runtime, SluiceRuntime otherNode, LongSupplier evalshaCalls) {
        // A 300 ms lease is renewed every 100 ms: wait for one renewal (an EVALSHA) rather than for a time.
        try (Permit permit = runtime.locks().semaphore("pdf", 1).acquire(Duration.ofMillis(300), Duration.ZERO)) {
            assertThat(otherNode.locks().semaphore("pdf", 1).tryAcquire(Duration.ofSeconds(1))).isEmpty();
            long before = evalshaCalls.getAsLong();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> evalshaCalls.getAsLong() > before);
            assertThat(permit.name()).isEqualTo("pdf");
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
