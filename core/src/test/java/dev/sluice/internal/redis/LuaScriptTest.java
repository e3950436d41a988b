package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LuaScriptTest {

    private static final Function<String, Optional<String>> NOTHING_CONFIGURED = key -> Optional.empty();

    @Test
    void shaIsTheSha1OfTheSourceAsRedisComputesIt() {
        LuaScript script = LuaScript.of("one", "return 1", "test");

        assertThat(script.sha()).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    @Test
    void loadsTheBundledScriptWhenNothingIsConfigured() {
        LuaScript script = LuaScript.load("test-incr", NOTHING_CONFIGURED);

        assertThat(script.name()).isEqualTo("test-incr");
        assertThat(script.source()).contains("INCRBY");
        assertThat(script.location()).isEqualTo("classpath:/dev/sluice/scripts/test-incr.lua");
        assertThat(script.configKey()).isEqualTo("sluice.script.test-incr");
    }

    @Test
    void loadsAClasspathReplacementNamedBySluiceScriptKey() {
        LuaScript script = LuaScript.load("test-incr",
                config("sluice.script.test-incr", "classpath:/dev/sluice/internal/redis/override-incr.lua"));

        assertThat(script.source()).contains("2 * tonumber");
        assertThat(script.sha()).isNotEqualTo(LuaScript.bundled("test-incr").sha());
    }

    @Test
    void loadsAFileReplacement(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("mine.lua"), "\uFEFFreturn 'mine'", StandardCharsets.UTF_8);

        LuaScript script = LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + file));

        assertThat(script.source()).as("byte-order mark dropped").isEqualTo("return 'mine'");
        assertThat(script.location()).isEqualTo("file:" + file);
        assertThat(LuaScript.load("test-incr", config("sluice.script.test-incr", file.toUri().toString())).source())
                .isEqualTo("return 'mine'");
    }

    @Test
    void missingReplacementNamesTheKeyAndTheLocation(@TempDir Path dir) {
        String location = "file:" + dir.resolve("absent.lua");

        assertThatThrownBy(() -> LuaScript.load("test-incr", config("sluice.script.test-incr", location)))
                .isInstanceOfSatisfying(SluiceConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("sluice.script.test-incr"))
                .hasMessageContaining("sluice.script.test-incr")
                .hasMessageContaining(location);
        assertThatThrownBy(() -> LuaScript.load("test-incr",
                config("sluice.script.test-incr", "classpath:/no/such/script.lua")))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("classpath:/no/such/script.lua");
    }

    @Test
    void emptyReplacementIsRejected(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.lua"), "  \n");

        assertThatThrownBy(() -> LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + empty)))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("is empty");
    }

    @Test
    void unknownLocationFormIsRejectedWithTheAcceptedForms() {
        assertThatThrownBy(() -> LuaScript.load("test-incr", config("sluice.script.test-incr", "http://x/y.lua")))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.script.test-incr: \"http://x/y.lua\"")
                .hasMessageContaining("classpath:/")
                .hasMessageContaining("file:/");
    }

    @Test
    void missingBundledScriptIsAPackagingError() {
        assertThatThrownBy(() -> LuaScript.load("no-such-script", NOTHING_CONFIGURED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dev/sluice/scripts/no-such-script.lua");
    }

    @Test
    void namesAreLowerCaseWordsWithDashes() {
        assertThatThrownBy(() -> LuaScript.bundled("../etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LuaScript.bundled("Gcra")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thePermitSetIsWrittenOnceAndIncludedByEveryScriptThatUsesIt() {
        String fragment = "classpath:/dev/sluice/scripts/include/permit-set.lua";
        for (String name : List.of("gcra", "concurrency-release", "semaphore-acquire", "semaphore-extend",
                "semaphore-handover", "semaphore-release")) {
            LuaScript script = LuaScript.bundled(name);
            Matcher lines = Pattern.compile("\\(lines (\\d+)-(\\d+) from " + Pattern.quote(fragment) + "\\)$")
                    .matcher(script.location());
            assertThat(lines.find()).as("%s: %s", name, script.location()).isTrue();
            List<String> source = script.source().lines().toList();
            int first = Integer.parseInt(lines.group(1));
            int last = Integer.parseInt(lines.group(2));
            assertThat(source.get(first - 1)).as(name).startsWith("-- permit-set.lua:");
            assertThat(source.get(last - 1)).as(name).isEqualTo("end");
            List<String> own = new ArrayList<>(source.subList(0, first - 1));
            own.addAll(source.subList(last, source.size()));
            assertThat(own).as("%s outside the fragment", name)
                    .noneMatch(line -> line.matches(".*'(ZADD|ZREM|ZRANGE|ZCARD|ZSCORE|ZREMRANGEBYSCORE|PEXPIREAT)'.*"))
                    .noneMatch(line -> line.startsWith("--#include"));
        }
    }

    @Test
    void aReplacementThatIncludesTheFragmentGetsTheBundledOneInPlaceOfThatLine(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("mine.lua"), "-- mine\n--#include permit-set.lua\nreturn 1\n");

        LuaScript script = LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + file));

        String fragment;
        try (var in = LuaScript.class.getClassLoader().getResourceAsStream("dev/sluice/scripts/include/permit-set.lua")) {
            fragment = new String(in.readAllBytes(), StandardCharsets.UTF_8).stripTrailing();
        }
        assertThat(script.source()).isEqualTo("-- mine\n" + fragment + "\nreturn 1\n");
        assertThat(script.location()).isEqualTo("file:" + file + " (lines 2-" + (1 + fragment.lines().count())
                + " from classpath:/dev/sluice/scripts/include/permit-set.lua)");
    }

    @Test
    void aReplacementIncludingWhatSluiceDoesNotBundleIsRejectedNamingTheKey(@TempDir Path dir) throws Exception {
        for (String line : List.of("--#include no-such.lua", "--#include", "--#include ../gcra.lua")) {
            Path file = Files.writeString(dir.resolve("mine.lua"), line + "\nreturn 1");

            assertThatThrownBy(() -> LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + file)))
                    .as(line).isInstanceOfSatisfying(SluiceConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("sluice.script.test-incr"))
                    .hasMessageContaining("file:" + file).hasMessageContaining("permit-set.lua");
        }
    }

    @Test
    void aScriptIsKnownByItsNameAndItsText() {
        LuaScript one = LuaScript.of("one", "return 1", "here");
        LuaScript same = LuaScript.of("one", "return 1", "elsewhere");

        assertThat(one).isEqualTo(same).hasSameHashCodeAs(same)
                .isNotEqualTo(LuaScript.of("two", "return 1", "here"))
                .isNotEqualTo(LuaScript.of("one", "return 2", "here"))
                .isNotEqualTo("return 1");
        assertThat(one.hashCode()).isNotEqualTo(LuaScript.of("one", "return 2", "here").hashCode());
        assertThat(one.toString()).contains("one").contains(one.sha()).contains("here");
        assertThat(LuaScript.of("one", "\uFEFFreturn 1", "here")).as("byte-order mark dropped").isEqualTo(one);
        assertThat(LuaScript.of("one", "--#include permit-set.lua", "here").source())
                .as("a text in hand is taken as it is").isEqualTo("--#include permit-set.lua");
    }

    @Test
    void aBlankReplacementMeansTheBundledScript() {
        LuaScript script = LuaScript.load("test-incr", config("sluice.script.test-incr", "  "));

        assertThat(script).isEqualTo(LuaScript.bundled("test-incr"));
        assertThat(script.location()).isEqualTo("classpath:/dev/sluice/scripts/test-incr.lua");
    }

    @Test
    void aClasspathReplacementIsFoundWithOrWithoutLeadingSlashesInTheApplicationsLoaderFirst(@TempDir Path dir)
            throws Exception {
        Files.createDirectories(dir.resolve("ops"));
        Files.writeString(dir.resolve("ops/gcra.lua"), "return 'the application''s'");
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (java.net.URLClassLoader application = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()},
                null)) {
            Thread.currentThread().setContextClassLoader(application);
            for (String location : List.of("classpath:ops/gcra.lua", "classpath:/ops/gcra.lua",
                    "classpath:///ops/gcra.lua")) {
                assertThat(LuaScript.load("gcra", config("sluice.script.gcra", location)).source()).as(location)
                        .isEqualTo("return 'the application''s'");
            }
            assertThat(LuaScript.load("test-incr", config("sluice.script.test-incr",
                    "classpath:/dev/sluice/internal/redis/override-incr.lua")).source())
                    .as("not in the application's loader: Sluice's own").contains("2 * tonumber");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    @Test
    void aDirectoryIsNoScript(@TempDir Path dir) {
        assertThatThrownBy(() -> LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + dir)))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("does not exist or cannot be read");
    }

    @Test
    void twoIncludesAreEachPlacedAndLocatedByTheirLines(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("mine.lua"),
                "-- one\n  --#include permit-set.lua  \n-- two\n--#include permit-set.lua");

        LuaScript script = LuaScript.load("test-incr", config("sluice.script.test-incr", "file:" + file));

        String fragment;
        try (var in = LuaScript.class.getClassLoader().getResourceAsStream("dev/sluice/scripts/include/permit-set.lua")) {
            fragment = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String body = fragment.endsWith("\n") ? fragment.substring(0, fragment.length() - 1) : fragment;
        long n = body.split("\n", -1).length;
        assertThat(script.source()).isEqualTo("-- one\n" + body + "\n-- two\n" + body + "\n");
        String from = " from classpath:/dev/sluice/scripts/include/permit-set.lua";
        assertThat(script.location()).isEqualTo("file:" + file + " (lines 2-" + (1 + n) + from + ", lines "
                + (3 + n) + "-" + (2 + 2 * n) + from + ")");
        assertThat(script.source().lines().toList().get((int) (1 + n))).isEqualTo("-- two");
    }

    private static Function<String, Optional<String>> config(String key, String value) {
        return k -> Optional.ofNullable(Map.of(key, value).get(k));
    }
}
