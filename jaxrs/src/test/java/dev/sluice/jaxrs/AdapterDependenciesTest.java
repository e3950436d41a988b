package dev.sluice.jaxrs;

import dev.sluice.test.AdapterReferences;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapters share core, not each other, and of core they use only the public API and {@code internal.http}
 * (docs/architecture.md, "Modules"; core's dependency tests check core's own parts). Read from the compiled
 * classes, so an import, a fully qualified name, an inferred type and the descriptor of a method called all count.
 */
class AdapterDependenciesTest {

    private static final Path CLASSES = Path.of("target/classes");
    private static final List<String> OWN = List.of("dev/sluice/jaxrs/", "dev/sluice/internal/jaxrs/");

    @Test
    void refersToNoClassOfTheOtherAdapter() {
        assertThat(AdapterReferences.into(CLASSES, OWN, List.of("dev/sluice/filter/"))).isEmpty();
    }

    @Test
    void usesOfCoreOnlyThePublicApiAndTheHttpPart() {
        assertThat(AdapterReferences.outsideTheirPart(CLASSES, OWN)).isEmpty();
    }
}
