package dev.sluice.bundle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bom/pom.xml} against the reactor, read from the POM files: every module that is published (deployed, and
 * not a parent POM) is in the BOM at the project's version, nothing else is, and the BOM has no parent, so that
 * importing it manages Sluice's artifacts and nothing of sluice-parent's.
 *
 * <p>A module is published unless {@code maven.deploy.skip} is {@code true} in its POM or a parent's (Maven's
 * property inheritance, followed through {@code <parent>}).
 */
class BomTest {

    private static final String GROUP = "dev.sluice";

    private static Path root;
    private static Map<String, Pom> reactor;
    private static Pom bom;

    @BeforeAll
    static void readTheReactor() throws Exception {
        root = reactorRoot();
        reactor = new LinkedHashMap<>();
        collect(root, reactor);
        bom = reactor.get("sluice-bom");
        assertThat(bom).as("a module with artifactId sluice-bom among the reactor's modules").isNotNull();
    }

    @Test
    void listsEveryPublishedArtifactAndNothingElse() {
        Set<String> published = new TreeSet<>();
        reactor.values().stream().filter(p -> !p.packaging().equals("pom") && !deploySkipped(p))
                .forEach(p -> published.add(p.artifactId()));
        assertThat(published).as("published artifacts of the reactor").contains("sluice-core", "sluice-bundle-javax");

        Set<String> listed = new TreeSet<>();
        for (Element dependency : bomEntries()) {
            listed.add(text(dependency, "artifactId"));
        }
        assertThat(listed).as("the artifacts sluice-bom manages (bom/pom.xml) against the reactor's published modules")
                .isEqualTo(published);
    }

    @Test
    void pinsEachArtifactToTheProjectVersionAsAPlainJar() {
        for (Element dependency : bomEntries()) {
            String artifactId = text(dependency, "artifactId");
            assertThat(text(dependency, "groupId")).as(artifactId + " groupId").isEqualTo(GROUP);
            assertThat(text(dependency, "version")).as(artifactId + " version").isEqualTo("${project.version}");
            for (String other : List.of("type", "classifier", "scope", "optional", "exclusions")) {
                assertThat(child(dependency, other)).as(artifactId + " <" + other + ">").isEmpty();
            }
        }
        Pom parent = reactor.get("sluice-parent");
        assertThat(bom.groupId()).isEqualTo(GROUP);
        assertThat(bom.version()).as("sluice-bom's version is the reactor's").isEqualTo(parent.version());
    }

    @Test
    void hasNoParentAndManagesNothingButSluice() {
        Element project = bom.xml().getDocumentElement();
        assertThat(child(project, "parent")).as("<parent>: importing the BOM would import its dependencyManagement")
                .isEmpty();
        assertThat(child(project, "dependencies")).as("<dependencies>").isEmpty();
        assertThat(child(project, "properties")).as("<properties>").isEmpty();
    }

    @Test
    void deploysWithTheReactorsInstallAndDeployPlugins() {
        Pom parent = reactor.get("sluice-parent");
        Element managed = child(child(bom.xml().getDocumentElement(), "build").orElseThrow(), "pluginManagement")
                .flatMap(p -> child(p, "plugins")).orElseThrow();
        Map<String, String> versions = new LinkedHashMap<>();
        for (Element plugin : children(managed, "plugin")) {
            versions.put(text(plugin, "artifactId"), text(plugin, "version"));
        }
        assertThat(versions).containsEntry("maven-install-plugin", parent.property("install-plugin.version").orElseThrow())
                .containsEntry("maven-deploy-plugin", parent.property("deploy-plugin.version").orElseThrow());
    }

    private static List<Element> bomEntries() {
        Element project = bom.xml().getDocumentElement();
        Element dependencies = child(project, "dependencyManagement").flatMap(d -> child(d, "dependencies"))
                .orElseThrow(() -> new AssertionError("bom/pom.xml has no <dependencyManagement><dependencies>"));
        List<Element> entries = children(dependencies, "dependency");
        assertThat(entries).as("entries of sluice-bom").isNotEmpty();
        return entries;
    }

    private static boolean deploySkipped(Pom pom) {
        for (Optional<Pom> p = Optional.of(pom); p.isPresent(); p = p.get().parentArtifactId().map(reactor::get)) {
            Optional<String> skip = p.get().property("maven.deploy.skip");
            if (skip.isPresent()) {
                return Boolean.parseBoolean(skip.get());
            }
        }
        return false;
    }

    /** One POM file of the reactor, with the parts this test reads. */
    private record Pom(Path file, Document xml) {

        Element project() {
            return xml.getDocumentElement();
        }

        String artifactId() {
            return text(project(), "artifactId");
        }

        String groupId() {
            return child(project(), "groupId").or(() -> child(project(), "parent").flatMap(p -> child(p, "groupId")))
                    .map(e -> e.getTextContent().strip()).orElseThrow();
        }

        String version() {
            return child(project(), "version").or(() -> child(project(), "parent").flatMap(p -> child(p, "version")))
                    .map(e -> e.getTextContent().strip()).orElseThrow();
        }

        String packaging() {
            return child(project(), "packaging").map(e -> e.getTextContent().strip()).orElse("jar");
        }

        Optional<String> parentArtifactId() {
            return child(project(), "parent").map(p -> text(p, "artifactId"));
        }

        Optional<String> property(String name) {
            return child(project(), "properties").flatMap(p -> child(p, name)).map(e -> e.getTextContent().strip());
        }
    }

    private static void collect(Path dir, Map<String, Pom> into) throws Exception {
        Path file = dir.resolve("pom.xml");
        Pom pom = new Pom(file, parse(file));
        assertThat(into.put(pom.artifactId(), pom)).as("artifactId " + pom.artifactId() + " twice in the reactor")
                .isNull();
        Optional<Element> modules = child(pom.project(), "modules");
        if (modules.isPresent()) {
            for (Element module : children(modules.get(), "module")) {
                collect(dir.resolve(module.getTextContent().strip()).normalize(), into);
            }
        }
    }

    private static Path reactorRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("bom/pom.xml")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no pom.xml with a bom/ module above " + Path.of("").toAbsolutePath());
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    private static Optional<Element> child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getLocalName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        return child(parent, name).map(e -> e.getTextContent().strip())
                .orElseThrow(() -> new AssertionError("no <" + name + "> in <" + parent.getLocalName() + ">"));
    }
}
