package dev.sluice.bundle;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded JAR as built: everything relocated, and what containers look for (web fragment,
 * service files) still in place. That it works on a server is shown by ear-sample's bundle WAR.
 */
class BundleContentsIT {

    private static final String SHADED = "dev/sluice/internal/shaded/";
    private static final List<String> RELOCATED = List.of(
            "redis/clients/", "org/apache/commons/pool2/", "org/json/", "com/google/gson/", "org/slf4j/");
    /**
     * A name in a class's constant pool that still points into an original package: a class or
     * descriptor ({@code redis/clients/...}, {@code Lredis/clients/...;}) or a whole string that is a
     * class name ({@code "redis.clients.jedis.X"}, as passed to {@code Class.forName}). Messages that
     * merely mention a package, such as SLF4J's "Failed to load class org.slf4j...", are not names.
     */
    private static final Pattern UNRELOCATED = Pattern.compile(RELOCATED.stream()
            .map(p -> "^" + Pattern.quote(p) + ".*|.*L" + Pattern.quote(p) + ".*|^"
                    + Pattern.quote(p.replace('/', '.')) + "[\\w.$]*$")
            .collect(Collectors.joining("|")));

    private static JarFile jar;

    @BeforeAll
    static void open() throws IOException {
        jar = new JarFile(Path.of(System.getProperty("sluice.bundle.jar")).toFile());
    }

    @AfterAll
    static void close() throws IOException {
        jar.close();
    }

    @Test
    void everyClassLivesUnderDevSluice() {
        assertThat(classes()).isNotEmpty().allMatch(name -> name.startsWith("dev/sluice/"));
    }

    @Test
    void containsCoreFilterJaxrsAndRelocatedJedis() {
        assertThat(names()).contains(
                "dev/sluice/Sluice.class",
                "dev/sluice/filter/RateLimitFilter.class",
                "dev/sluice/jaxrs/RateLimited.class",
                "dev/sluice/jaxrs/RateLimitFeature.class",
                SHADED + "redis/clients/jedis/UnifiedJedis.class",
                SHADED + "org/apache/commons/pool2/impl/GenericObjectPool.class",
                SHADED + "org/slf4j/impl/StaticLoggerBinder.class");
    }

    @Test
    void noClassStillNamesAnOriginalPackage() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (String name : classes()) {
            for (String constant : ConstantPool.strings(bytes(name))) {
                if (UNRELOCATED.matcher(constant).matches()) {
                    offenders.add(name + " -> " + constant);
                }
            }
        }
        assertThat(offenders).isEmpty();
    }

    @Test
    void keepsTheWebFragmentThatRegistersTheFilter() throws IOException {
        assertThat(read("META-INF/web-fragment.xml"))
                .contains("<name>sluice</name>")
                .contains("dev.sluice.filter.RateLimitFilter");
    }

    @Test
    void everyServiceFileNamesClassesInsideTheJar() throws IOException {
        Set<String> names = names();
        List<String> services = names.stream()
                .filter(n -> n.startsWith("META-INF/services/") && !n.endsWith("/"))
                .sorted()
                .toList();
        assertThat(services).as("service files").isNotEmpty();
        for (String service : services) {
            List<String> implementations = read(service).lines()
                    .map(line -> line.replaceAll("#.*", "").trim())
                    .filter(line -> !line.isEmpty())
                    .toList();
            assertThat(implementations).as(service)
                    .isNotEmpty()
                    .allSatisfy(impl -> assertThat(names).contains(impl.replace('.', '/') + ".class"));
        }
    }

    private static Set<String> names() {
        return Collections.list(jar.entries()).stream().map(JarEntry::getName).collect(Collectors.toSet());
    }

    private static List<String> classes() {
        return names().stream().filter(n -> n.endsWith(".class")).sorted().toList();
    }

    private static String read(String name) throws IOException {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }
}
