package dev.sluice.docs;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every {@code properties}, {@code xml} and {@code java} block of README.md and docs/*.md is checked,
 * so that what a reader copies works: properties are loaded and validated by Sluice's own configuration
 * loader (a block marked {@code <!-- snippet: invalid -->} must be refused), XML is well-formed and
 * valid against the Servlet schema where it is {@code web.xml} content, Java compiles against the public
 * API. How fragments are marked and wrapped: {@link Snippet}, {@link SnippetJava}.
 */
class DocSnippetsTest {

    private static final Path ROOT = repositoryRoot();
    private static final SnippetJava JAVA = new SnippetJava(System.getProperty("java.class.path"));

    @TestFactory
    Stream<DynamicTest> everySnippetOfTheDocsWorks() {
        return snippets().stream()
                .filter(s -> List.of("properties", "xml", "java").contains(s.language()))
                .map(s -> DynamicTest.dynamicTest(s.toString(), () -> check(s)));
    }

    @Test
    void theDocsHaveSnippetsOfEveryCheckedKind() {
        assertThat(snippets()).extracting(Snippet::language).contains("properties", "xml", "java");
    }

    /** The sample's descriptors are what readers copy most: held to the same checks as the pages. */
    @TestFactory
    Stream<DynamicTest> theSamplesWebXmlIsValid() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT.resolve("ear-sample"))) {
            return files.filter(f -> f.endsWith(Path.of("WEB-INF", "web.xml")) && !f.toString().contains("target"))
                    .toList().stream()
                    .map(f -> DynamicTest.dynamicTest(ROOT.relativize(f).toString(),
                            () -> SnippetXml.check(Files.readString(f), true)));
        }
    }

    static void check(Snippet s) throws Exception {
        switch (s.language()) {
            case "properties" -> checkProperties(s);
            case "xml" -> {
                SnippetXml.check(s.text(), s.mark() != Snippet.Mark.FRAGMENT);
                assertThat(undefinedMavenProperties(s.text()))
                        .as("%s uses Maven properties it does not define in <properties>: a reader who copies it"
                                + " gets an unresolved ${...}", s).isEmpty();
            }
            case "java" -> assertThat(JAVA.errors(s.text(), Snippet.read(s.page()).stream()
                    .filter(o -> o.language().equals("java") && o.line() != s.line()).map(Snippet::text).toList()))
                    .as("%s does not compile", s).isEmpty();
            default -> throw new IllegalArgumentException(s.language());
        }
    }

    /** The {@code ${name}} of a POM snippet that it does not define as {@code <name>}, except Maven's own. */
    static List<String> undefinedMavenProperties(String xml) {
        List<String> undefined = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\$\\{([\\w.-]+)}").matcher(xml);
        while (m.find()) {
            String name = m.group(1);
            if (!name.startsWith("project.") && !name.startsWith("env.") && !xml.contains("<" + name + ">")) {
                undefined.add("${" + name + "}");
            }
        }
        return undefined;
    }

    private static void checkProperties(Snippet s) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(s.text()));
        Map<String, String> values = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        values.forEach((k, v) -> assertThat(v)
                .as("%s: the value of %s holds a '#' after a space: in a .properties file a comment is only a "
                        + "line of its own, so this text is part of the value", s, k)
                .doesNotContainPattern("\\s#"));
        if (s.mark() == Snippet.Mark.FRAGMENT) {
            return; // part of a larger configuration: parsed, but not a whole one to validate
        }
        if (s.mark() == Snippet.Mark.INVALID) {
            assertThatThrownBy(() -> SluiceConfigLoader.load(ConfigSources.of(values)))
                    .as("%s is marked invalid", s).isInstanceOf(SluiceConfigException.class);
        } else {
            SluiceConfigLoader.load(ConfigSources.of(values));
        }
    }

    static List<Snippet> snippets() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.add(ROOT.resolve("CHANGELOG.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return pages.stream().filter(Files::exists).flatMap(f -> Snippet.read(f).stream()).toList();
    }

    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("docs")) && Files.exists(p.resolve("README.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
    }
}
