package dev.sluice.test;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The adapters' rule finds what breaks it: core's CDI extension, read as if it were an adapter, names the runtime
 * and the configuration directly, and nothing of the public API or {@code internal.http} counts against it.
 */
class AdapterReferencesTest {

    private static final Path CORE = Path.of("target/classes");

    @Test
    void referencesOutsideThePublicApiAndTheHttpPartAreFound() {
        List<String> broken = AdapterReferences.outsideTheirPart(CORE, List.of("dev/sluice/internal/cdi/"));

        assertThat(broken)
                .contains("dev/sluice/internal/cdi/SluiceExtension -> dev/sluice/internal/runtime/SluiceRuntime",
                        "dev/sluice/internal/cdi/SluiceExtension -> dev/sluice/internal/config/SluiceConfig")
                .noneMatch(b -> b.contains("-> dev/sluice/internal/http/") || b.contains("-> dev/sluice/internal/cdi/")
                        || b.matches(".* -> dev/sluice/[A-Za-z]+$"));
    }

    @Test
    void referencesIntoForbiddenPackagesAreFound() {
        assertThat(AdapterReferences.into(CORE, List.of("dev/sluice/internal/cdi/"), List.of("dev/sluice/internal/http/")))
                .contains("dev/sluice/internal/cdi/SluiceExtension -> dev/sluice/internal/http/AdapterLifecycle");
    }

    @Test
    void aFolderWithoutTheAdaptersClassesIsRefused() {
        assertThatThrownBy(() -> AdapterReferences.outsideTheirPart(CORE, List.of("dev/sluice/filter/")))
                .isInstanceOf(IllegalStateException.class);
    }
}
