package dev.sluice.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One fenced code block of a Markdown page: its language, its text (with the fence's indentation
 * removed) and how the page marks it. A mark is an HTML comment on the nearest non-blank line above
 * the fence, invisible on the rendered page: {@code <!-- snippet: fragment -->} (part of a larger
 * file: properties and XML are parsed but not validated as a whole; Java is wrapped as it always is) or
 * {@code <!-- snippet: invalid -->} (properties showing a value Sluice refuses; the check asserts that it
 * is refused).
 */
record Snippet(Path page, int line, String language, String text, Mark mark) {

    enum Mark { NONE, FRAGMENT, INVALID }

    private static final Pattern FENCE_OPEN = Pattern.compile("^(\\s*)```(\\w+)\\s*$");
    private static final Pattern FENCE_CLOSE = Pattern.compile("^\\s*```\\s*$");
    private static final Pattern MARK = Pattern.compile("^\\s*<!--\\s*snippet:\\s*(fragment|invalid)\\s*-->\\s*$");

    /** Every fenced block of the page, in order. */
    static List<Snippet> read(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE_OPEN.matcher(lines.get(i));
            if (!open.matches()) {
                if (lines.get(i).trim().startsWith("```")) {
                    i = skipBlock(lines, i); // an unlabelled or odd fence: not checked, but skipped whole
                }
                continue;
            }
            int indent = open.group(1).length();
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !FENCE_CLOSE.matcher(lines.get(j)).matches()) {
                String l = lines.get(j);
                text.append(l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l.strip())
                        .append('\n');
                j++;
            }
            snippets.add(new Snippet(page, i + 1, open.group(2), text.toString(), markAbove(lines, i)));
            i = j;
        }
        return snippets;
    }

    private static int skipBlock(List<String> lines, int open) {
        for (int j = open + 1; j < lines.size(); j++) {
            if (FENCE_CLOSE.matcher(lines.get(j)).matches()) {
                return j;
            }
        }
        return lines.size();
    }

    private static Mark markAbove(List<String> lines, int fence) {
        for (int k = fence - 1; k >= 0; k--) {
            if (lines.get(k).isBlank()) {
                continue;
            }
            Matcher m = MARK.matcher(lines.get(k));
            return m.matches() ? Mark.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT)) : Mark.NONE;
        }
        return Mark.NONE;
    }

    @Override
    public String toString() {
        return page.getFileName() + ":" + line + " (" + language + (mark == Mark.NONE ? "" : ", " + mark) + ")";
    }
}
