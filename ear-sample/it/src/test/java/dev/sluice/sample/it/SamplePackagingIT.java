package dev.sluice.sample.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three packagings hold what their names promise; the server tests then show each one works.
 * Reads the archives the build copied to {@code target/deployments}.
 */
class SamplePackagingIT {

    @Test
    void earKeepsSluiceJedisAndItsConfigurationInLibAndTheWebModuleThin() throws IOException {
        List<String> ear = entries(Deployments.directory().resolve("sample.ear"));
        assertThat(ear).contains("sample.war", "META-INF/application.xml")
                .anyMatch(e -> e.matches("lib/.*sluice-sample-ear-config-.*\\.jar"))
                .anyMatch(e -> e.matches("lib/.*sluice-core-.*\\.jar"))
                .anyMatch(e -> e.matches("lib/.*sluice-filter-.*\\.jar"))
                .anyMatch(e -> e.matches("lib/.*sluice-jaxrs-.*\\.jar"))
                .anyMatch(e -> e.matches("lib/.*jedis-.*\\.jar"));

        try (ZipFile file = new ZipFile(Deployments.directory().resolve("sample.ear").toFile());
                ZipInputStream war = new ZipInputStream(file.getInputStream(file.getEntry("sample.war")))) {
            List<String> libraries = new ArrayList<>();
            List<String> configFiles = new ArrayList<>();
            String webXml = null;
            for (ZipEntry entry; (entry = war.getNextEntry()) != null; ) {
                if (entry.getName().startsWith("WEB-INF/lib/") && entry.getName().endsWith(".jar")) {
                    libraries.add(entry.getName());
                }
                if (entry.getName().endsWith("microprofile-config.properties")) {
                    configFiles.add(entry.getName());
                }
                if (entry.getName().equals("WEB-INF/web.xml")) {
                    webXml = new String(war.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
            assertThat(libraries).as("libraries of the EAR's web module").isEmpty();
            assertThat(configFiles).as("configuration lives at EAR level, where every server sees it").isEmpty();
            assertThat(webXml).as("the EAR's web.xml declares the filter, fragments in lib/ are not scanned")
                    .contains("<filter-class>dev.sluice.filter.RateLimitFilter</filter-class>");
        }
    }

    @Test
    void plainWarCarriesSluiceInWebInfLibAndLeavesTheFilterToItsFragment() throws IOException {
        Path war = Deployments.directory().resolve("sample-plain.war");
        assertThat(entries(war))
                .anyMatch(e -> e.matches("WEB-INF/lib/sluice-core-.*\\.jar"))
                .anyMatch(e -> e.matches("WEB-INF/lib/sluice-filter-.*\\.jar"))
                .anyMatch(e -> e.matches("WEB-INF/lib/sluice-jaxrs-.*\\.jar"))
                .anyMatch(e -> e.matches("WEB-INF/lib/jedis-.*\\.jar"));
        assertThat(read(war, "WEB-INF/web.xml")).doesNotContain("RateLimitFilter");
    }

    @Test
    void bundleWarsOnlyLibraryIsTheBundle() throws IOException {
        Path war = Deployments.directory().resolve("sample-bundle.war");
        assertThat(entries(war).stream().filter(e -> e.startsWith("WEB-INF/lib/") && e.endsWith(".jar")))
                .singleElement().asString().matches("WEB-INF/lib/sluice-bundle-.*\\.jar");
        assertThat(read(war, "WEB-INF/web.xml")).doesNotContain("RateLimitFilter");
    }

    private static List<String> entries(Path archive) throws IOException {
        assertThat(archive).as("built by Maven").isRegularFile();
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            return Collections.list(zip.entries()).stream().map(ZipEntry::getName).toList();
        }
    }

    private static String read(Path archive, String name) throws IOException {
        try (ZipFile zip = new ZipFile(archive.toFile());
                InputStream in = zip.getInputStream(zip.getEntry(name))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
