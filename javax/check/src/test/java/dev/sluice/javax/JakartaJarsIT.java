package dev.sluice.javax;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jakarta JARs name no Java EE {@code javax.*} API, which Jakarta EE 9+ servers do not have. The JDK's own
 * {@code javax} packages ({@code javax.management}, {@code javax.net.ssl}, ...) are fine.
 */
class JakartaJarsIT {

    private static final Pattern JAVAX_NAME = Pattern.compile("javax[./][\\w$]+(?:[./][\\w$]+)*");

    private static final Set<String> JDK_PACKAGES = ModuleLayer.boot().modules().stream()
            .flatMap(m -> m.getPackages().stream())
            .filter(p -> p.startsWith("javax."))
            .collect(Collectors.toSet());

    @ParameterizedTest
    @ValueSource(strings = {"core", "filter", "jaxrs", "bundle"})
    void namesNoJavaEeApi(String name) {
        ScannedJar jar = ScannedJar.named(name);
        List<String> found = new ArrayList<>();
        jar.classes.forEach((entry, classFile) -> classFile.strings().forEach(s -> eeNames(s)
                .forEach(n -> found.add(entry + ": " + n))));
        jar.resources.forEach((entry, text) -> {
            eeNames(entry).forEach(n -> found.add("resource name " + entry));
            eeNames(text).forEach(n -> found.add(entry + ": " + n));
        });
        assertThat(jar.classes).as("%s has classes", jar).isNotEmpty();
        assertThat(found).as("Java EE javax names in %s", jar).isEmpty();
    }

    /** The javax names in {@code s} that no JDK package accounts for. */
    private static List<String> eeNames(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = JAVAX_NAME.matcher(s);
        while (m.find()) {
            String dotted = m.group().replace('/', '.');
            if (!inJdk(dotted)) {
                out.add(m.group());
            }
        }
        return out;
    }

    private static boolean inJdk(String dotted) {
        for (String candidate = dotted; candidate.contains("."); candidate = candidate.substring(0, candidate.lastIndexOf('.'))) {
            if (JDK_PACKAGES.contains(candidate)) {
                return true;
            }
        }
        return false;
    }
}
