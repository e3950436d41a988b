package dev.sluice.filter;

import dev.sluice.test.ClassReferences;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapters share core, not each other: no class of this module refers to sluice-jaxrs's (docs/architecture.md,
 * "Dependency rules"; core's DependencyRulesTest checks core's own parts). Read from the compiled classes, so an
 * import, a fully qualified name and an inferred type all count.
 */
class AdapterDependenciesTest {

    private static final List<String> FORBIDDEN = List.of("dev/sluice/jaxrs/", "dev/sluice/internal/jaxrs/");

    @Test
    void refersToNoClassOfTheOtherAdapter() {
        Map<String, Set<String>> classes = ClassReferences.of(Path.of("target/classes"));
        assertThat(classes.keySet()).as("run from the filter module after compiling").anyMatch(c -> c.startsWith("dev/sluice/filter/"));
        List<String> broken = new ArrayList<>();
        classes.forEach((name, referenced) -> referenced.stream()
                .filter(target -> FORBIDDEN.stream().anyMatch(target::startsWith))
                .forEach(target -> broken.add(name + " -> " + target)));
        assertThat(broken).isEmpty();
    }
}
