package dev.sluice.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of README.md, CHANGELOG.md and docs/*.md reaches a file that exists and, when it
 * names one, a heading of that page (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
 */
class DocLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

    @Test
    void everyRelativeLinkReachesAFileAndHeading() throws IOException {
        Path root = DocSnippetsTest.repositoryRoot();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            if (!Files.exists(page)) {
                continue;
            }
            String text = withoutCodeBlocks(Files.readString(page));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(to)) {
                    broken.add(root.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && to.toString().endsWith(".md")
                        && !anchors(to).contains(target.substring(hash + 1))) {
                    broken.add(root.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?ms)^\\s*```.*?^\\s*```\\s*$", "");
    }

    static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        String text;
        try {
            text = withoutCodeBlocks(Files.readString(page));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String line : text.split("\n")) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String base = h.group(1).strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String anchor = base;
                for (int n = 1; !anchors.add(anchor); n++) {
                    anchor = base + "-" + n;
                }
            }
        }
        return anchors;
    }
}
