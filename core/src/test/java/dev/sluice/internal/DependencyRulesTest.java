package dev.sluice.internal;

import dev.sluice.test.ClassReferences;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The directions in which core's parts may depend on each other, checked on the compiled classes (so an import, a
 * fully qualified name and an inferred type all count; a string constant does not). docs/architecture.md draws the
 * same picture; a rule changed here is changed there.
 */
class DependencyRulesTest {

    private static final Path CLASSES = Path.of("target/classes");

    /** A part of core: the public API ({@code dev/sluice/} itself) or an internal package. */
    private static String part(String className) {
        String rest = className.substring("dev/sluice/".length());
        if (!rest.contains("/")) {
            return "api";
        }
        return rest.startsWith("internal/") ? rest.substring("internal/".length(), rest.indexOf('/', 9))
                : rest.substring(0, rest.indexOf('/'));
    }

    /** {@code from} must not refer to any class whose internal name starts with one of {@code forbidden}. */
    private record Rule(String why, Set<String> from, List<String> forbidden) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule("the public API names no internal class", Set.of("api"), List.of("dev/sluice/internal/")),
            new Rule("locks and semaphores are a part of their own beside rate limits (Lock -> Limit)",
                    Set.of("lock"), List.of("dev/sluice/internal/limit/")),
            new Rule("rate limits are a part of their own beside locks (Limit -> Lock)",
                    Set.of("limit"), List.of("dev/sluice/internal/lock/")),
            new Rule("the primitives are built from parts and know nothing of the runtime or the adapters' layer",
                    Set.of("limit", "lock"), List.of("dev/sluice/internal/runtime/", "dev/sluice/internal/cdi/",
                            "dev/sluice/internal/http/")),
            new Rule("Redis access knows no policy part (Redis -> limit, lock, http, cdi, runtime, metrics)",
                    Set.of("redis"), List.of("dev/sluice/internal/limit/", "dev/sluice/internal/lock/",
                            "dev/sluice/internal/http/", "dev/sluice/internal/cdi/", "dev/sluice/internal/runtime/",
                            "dev/sluice/internal/metrics/")),
            new Rule("configuration is the model every part reads and depends on none of them",
                    Set.of("config"), List.of("dev/sluice/internal/limit/", "dev/sluice/internal/lock/",
                            "dev/sluice/internal/http/", "dev/sluice/internal/cdi/", "dev/sluice/internal/runtime/",
                            "dev/sluice/internal/metrics/", "dev/sluice/internal/redis/")),
            new Rule("leases and transactions are leaves that locks and rate limits share",
                    Set.of("lease", "tx"), List.of("dev/sluice/internal/limit/", "dev/sluice/internal/lock/",
                            "dev/sluice/internal/http/", "dev/sluice/internal/cdi/", "dev/sluice/internal/runtime/",
                            "dev/sluice/internal/metrics/", "dev/sluice/internal/redis/", "dev/sluice/internal/config/")),
            new Rule("metrics count what the primitives report and call none of them",
                    Set.of("metrics"), List.of("dev/sluice/internal/limit/", "dev/sluice/internal/lock/",
                            "dev/sluice/internal/http/", "dev/sluice/internal/cdi/", "dev/sluice/internal/runtime/")),
            new Rule("core knows nothing of Servlet or JAX-RS (the adapters translate)",
                    Set.of("api", "config", "redis", "limit", "lock", "lease", "tx", "metrics", "runtime", "cdi", "http"),
                    List.of("jakarta/servlet/", "jakarta/ws/rs/", "javax/servlet/", "javax/ws/rs/")));

    @Test
    void everyPartOfCoreDependsOnlyInTheAllowedDirections() {
        Map<String, Set<String>> classes = ClassReferences.of(CLASSES.resolve(""));
        assertThat(classes).as("run from the core module after compiling").containsKey(
                "dev/sluice/internal/lock/LockService");
        List<String> broken = new ArrayList<>();
        classes.forEach((name, referenced) -> {
            if (!name.startsWith("dev/sluice/")) {
                return;
            }
            String part = part(name);
            for (Rule rule : RULES) {
                if (!rule.from().contains(part)) {
                    continue;
                }
                for (String target : referenced) {
                    if (rule.forbidden().stream().anyMatch(target::startsWith)) {
                        broken.add(name + " -> " + target + ": " + rule.why());
                    }
                }
            }
        });
        assertThat(broken).isEmpty();
    }
}
