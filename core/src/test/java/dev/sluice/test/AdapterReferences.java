package dev.sluice.test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dependency rule of the HTTP adapters (docs/architecture.md, "Modules"), checked by each adapter module's
 * {@code AdapterDependenciesTest} over its compiled classes ({@link ClassReferences}): of core an adapter names
 * only the public API ({@code dev.sluice}) and {@code dev.sluice.internal.http}, besides its own packages, and
 * nothing of the other adapter.
 */
public final class AdapterReferences {

    private static final String HTTP = "dev/sluice/internal/http/";

    private AdapterReferences() {
    }

    /**
     * The references {@code classes} make to a Sluice class outside the public API, {@code internal.http} and
     * {@code own}, as {@code from -> to}; empty when the rule holds.
     *
     * @param own the adapter's packages, as internal-name prefixes ({@code dev/sluice/filter/})
     */
    public static List<String> outsideTheirPart(Path classes, List<String> own) {
        List<String> broken = new ArrayList<>();
        of(classes, own).forEach((name, referenced) -> referenced.stream()
                .filter(target -> target.startsWith("dev/sluice/") && !publicApi(target) && !target.startsWith(HTTP)
                        && own.stream().noneMatch(target::startsWith))
                .forEach(target -> broken.add(name + " -> " + target)));
        return broken;
    }

    /** The references {@code classes} make to {@code forbidden} packages, as {@code from -> to}. */
    public static List<String> into(Path classes, List<String> own, List<String> forbidden) {
        List<String> broken = new ArrayList<>();
        of(classes, own).forEach((name, referenced) -> referenced.stream()
                .filter(target -> forbidden.stream().anyMatch(target::startsWith))
                .forEach(target -> broken.add(name + " -> " + target)));
        return broken;
    }

    private static Map<String, Set<String>> of(Path classes, List<String> own) {
        Map<String, Set<String>> references = ClassReferences.of(classes);
        if (references.keySet().stream().noneMatch(c -> own.stream().anyMatch(c::startsWith))) {
            throw new IllegalStateException("no class of " + own + " below " + classes.toAbsolutePath()
                    + ": run from the adapter's module after compiling");
        }
        return references;
    }

    /** A class of the package {@code dev.sluice} itself (or one nested in it), not of a sub-package. */
    private static boolean publicApi(String target) {
        return target.lastIndexOf('/') == "dev/sluice".length();
    }
}
