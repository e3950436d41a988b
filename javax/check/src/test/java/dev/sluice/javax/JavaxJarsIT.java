package dev.sluice.javax;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The javax JARs as an EE 8 server sees them: nothing left in {@code jakarta.*} (which such a server cannot
 * resolve), and everything they use from Java EE 8 and MicroProfile present in the EE 8 / MicroProfile 4
 * API JARs of this module's test class path (MicroProfile Config 2.0, Health 3.1, Metrics 3.0: WildFly 26).
 */
class JavaxJarsIT {

    private static final List<String> EE8_AND_MP4 = List.of(
            "javax/servlet/", "javax/ws/rs/", "javax/enterprise/", "javax/inject/", "javax/interceptor/",
            "javax/annotation/", "javax/transaction/", "org/eclipse/microprofile/");

    private static Map<String, ScannedJar> jars;

    @BeforeAll
    static void read() {
        jars = List.of("core-javax", "filter-javax", "jaxrs-javax", "bundle-javax", "core", "filter", "jaxrs",
                "bundle").stream().collect(Collectors.toMap(n -> n, ScannedJar::named));
    }

    @ParameterizedTest
    @ValueSource(strings = {"core-javax", "filter-javax", "jaxrs-javax", "bundle-javax"})
    void namesNothingInTheJakartaNamespaceAnywhere(String name) {
        ScannedJar jar = jars.get(name);
        List<String> found = new ArrayList<>();
        jar.classes.forEach((entry, classFile) -> {
            classFile.attributes().stream().filter(JavaxJarsIT::namesJakarta).forEach(s -> found.add(entry + " " + s));
            // Unused constants too: a tool that reads the pool (a scanner, an agent, an index) still sees them.
            classFile.everyConstant().stream().filter(JavaxJarsIT::namesJakarta)
                    .forEach(s -> found.add(entry + " constant: " + s));
        });
        jar.resources.forEach((entry, text) -> {
            if (namesJakarta(entry)) {
                found.add("resource name " + entry);
            }
            text.lines().filter(JavaxJarsIT::namesJakarta).forEach(line -> found.add(entry + ": " + line.strip()));
        });
        assertThat(jar.classes).as("%s has classes", jar).isNotEmpty();
        assertThat(found).as("jakarta names in %s", jar).isEmpty();
    }

    @Test
    void readsTheGenericSignaturesAndAnnotationsItChecks() {
        List<String> extension = jars.get("core-javax").classes.get("dev/sluice/internal/cdi/SluiceExtension.class").attributes();
        assertThat(extension).anyMatch(a -> a.startsWith("method collectGuardedMethods")
                && a.contains("Ljavax/enterprise/inject/spi/ProcessManagedBean<"));
        assertThat(extension).anyMatch(a -> a.contains("annotation: Ljavax/enterprise/inject/spi/WithAnnotations;"));
        assertThat(extension).anyMatch(a -> a.contains("LocalVariableTypeTable: Ljavax/enterprise/inject/spi/"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"core-javax", "filter-javax", "jaxrs-javax", "bundle-javax"})
    void everyJavaEeAndMicroProfileMemberItUsesExistsOnAnEe8Server(String name) {
        ApiReferences ee8 = new ApiReferences(EE8_AND_MP4);
        ScannedJar jar = jars.get(name);
        assertThat(ee8.memberCount(jar)).as("members of EE 8 / MicroProfile APIs that %s uses", jar).isPositive();
        assertThat(ee8.unresolved(jar)).as("what %s uses and EE 8 / MicroProfile 4 lack", jar).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"core", "filter", "jaxrs", "bundle"})
    void holdsTheSameClassesAsItsJakartaSibling(String jakarta) {
        assertThat(jars.get(jakarta + "-javax").classes.keySet())
                .containsExactlyInAnyOrderElementsOf(jars.get(jakarta).classes.keySet());
    }

    @ParameterizedTest
    @ValueSource(strings = {"core", "filter", "jaxrs", "bundle"})
    void renamesEveryServiceFileOfItsJakartaSibling(String jakarta) {
        assertThat(services(jars.get(jakarta + "-javax")))
                .isEqualTo(services(jars.get(jakarta)).stream()
                        .map(file -> file.replace("/jakarta.", "/javax."))
                        .collect(Collectors.toCollection(TreeSet::new)));
    }

    @Test
    void registersTheServiceEntryPointsUnderTheirJavaxNames() {
        assertThat(jars.get("core-javax").resources)
                .containsKey("META-INF/services/javax.enterprise.inject.spi.Extension");
        assertThat(jars.get("jaxrs-javax").resources)
                .containsKey("META-INF/services/javax.servlet.ServletContainerInitializer");
        assertThat(services(jars.get("bundle-javax"))).contains(
                "META-INF/services/javax.enterprise.inject.spi.Extension",
                "META-INF/services/javax.servlet.ServletContainerInitializer");
    }

    @ParameterizedTest
    @ValueSource(strings = {"filter-javax", "bundle-javax"})
    void webFragmentIsAJavaEeFragment(String name) {
        String fragment = jars.get(name).resources.get("META-INF/web-fragment.xml");
        assertThat(fragment).as("web-fragment.xml of %s", name).isNotNull()
                .contains("xmlns=\"http://xmlns.jcp.org/xml/ns/javaee\"")
                .containsPattern("web-fragment_(3_1|4_0)\\.xsd")
                .containsPattern("version=\"(3\\.1|4\\.0)\"")
                .contains("<filter-class>dev.sluice.filter.RateLimitFilter</filter-class>");
    }

    @ParameterizedTest
    @ValueSource(strings = {"core-javax", "bundle-javax"})
    void beansXmlIsAJavaEeBeansDescriptor(String name) {
        String beans = jars.get(name).resources.get("META-INF/beans.xml");
        assertThat(beans).as("beans.xml of %s", name).isNotNull()
                .contains("xmlns=\"http://xmlns.jcp.org/xml/ns/javaee\"")
                .containsPattern("beans_(1_1|2_0)\\.xsd")
                .containsPattern("version=\"(1\\.1|2\\.0)\"");
    }

    private static boolean namesJakarta(String s) {
        return s.contains("jakarta/") || s.contains("jakarta.");
    }

    private static Set<String> services(ScannedJar jar) {
        return jar.resources.keySet().stream().filter(e -> e.startsWith("META-INF/services/"))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
