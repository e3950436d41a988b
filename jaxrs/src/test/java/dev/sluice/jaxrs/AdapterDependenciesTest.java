package dev.sluice.jaxrs;

import dev.sluice.test.ClassReferences;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapters share core, not each other, and of core they use only the public API and {@code internal.http}
 * (docs/architecture.md, "Dependency rules"; core's dependency tests check core's own parts). Read from the compiled
 * classes, so an import, a fully qualified name, an inferred type and the descriptor of a method called all count.
 */
class AdapterDependenciesTest {

    private static final List<String> FORBIDDEN = List.of("dev/sluice/filter/");

    /** Of core, the adapter may name the public API ({@code dev.sluice}) and {@code dev.sluice.internal.http}. */
    private static final List<String> ALLOWED = List.of("dev/sluice/internal/http/", "dev/sluice/jaxrs/",
            "dev/sluice/internal/jaxrs/");

    @Test
    void refersToNoClassOfTheOtherAdapter() {
        List<String> broken = new ArrayList<>();
        classes().forEach((name, referenced) -> referenced.stream()
                .filter(target -> FORBIDDEN.stream().anyMatch(target::startsWith))
                .forEach(target -> broken.add(name + " -> " + target)));
        assertThat(broken).isEmpty();
    }

    @Test
    void usesOfCoreOnlyThePublicApiAndTheHttpPart() {
        List<String> broken = new ArrayList<>();
        classes().forEach((name, referenced) -> referenced.stream()
                .filter(target -> target.startsWith("dev/sluice/") && !publicApi(target)
                        && ALLOWED.stream().noneMatch(target::startsWith))
                .forEach(target -> broken.add(name + " -> " + target)));
        assertThat(broken).isEmpty();
    }

    /** A class of the package {@code dev.sluice} itself (or one nested in it), not of a sub-package. */
    private static boolean publicApi(String target) {
        return target.lastIndexOf('/') == "dev/sluice".length();
    }

    private static Map<String, Set<String>> classes() {
        Map<String, Set<String>> classes = ClassReferences.of(Path.of("target/classes"));
        assertThat(classes.keySet()).as("run from the jaxrs module after compiling").anyMatch(c -> c.startsWith("dev/sluice/"));
        return classes;
    }
}
