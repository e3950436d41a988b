package dev.sluice.internal.http;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The forwarding headers' parsers at their edges: every token character class in a {@code Forwarded}
 * parameter name, quoted values, and the limits on hops and header length of both headers.
 */
class ForwardingHeadersBoundsTest {

    @Test
    void forwardedElementsAreReadNearestFirstQuotedOrNot() {
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=192.0.2.1, for=\"[2001:db8::1]:4711\";proto=https")))
                .containsExactly("[2001:db8::1]:4711", "192.0.2.1");
    }

    @Test
    void parameterNamesMayUseEveryTokenCharacterAndNothingElse() {
        assertThat(ForwardingHeaders.forwardedFor(List.of("azAZ09=1;for=192.0.2.1;!~=2")))
                .containsExactly("192.0.2.1");
        for (String name : List.of("a@b", "a[b", "a{b", "a/b", "a:b", "a\"b")) {
            assertThat(ForwardingHeaders.forwardedFor(List.of(name + "=1;for=192.0.2.1"))).as(name)
                    .containsExactly(ForwardingHeaders.NO_FOR);
        }
    }

    @Test
    void aQuotedValueKeepsSpacesAndTabsButNoOtherControlCharacter() {
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=\"a b\ttab\""))).containsExactly("a b\ttab");
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=\"a\u001fb\""))).containsExactly(ForwardingHeaders.NO_FOR);
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=\"a\u007fb\""))).containsExactly(ForwardingHeaders.NO_FOR);
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=\"a\\\"b\""))).containsExactly("a\"b");
    }

    @Test
    void aMalformedElementEndsTheHopsButTheElementsAfterItAreRead() {
        for (String bad : List.of("for=", "for=192.0.2.2 junk", "for=\"a\\", "for=\"a\u001fb\"", "for=\"abc",
                "a=\"b\"\"", "for=\\\"a\"", "for=192.0.2.2;for=192.0.2.3", "for=\"192.0.2.2\"x")) {
            assertThat(ForwardingHeaders.forwardedFor(List.of("for=192.0.2.1, " + bad))).as(bad)
                    .containsExactly(ForwardingHeaders.NO_FOR);
            assertThat(ForwardingHeaders.forwardedFor(List.of(bad + ", for=192.0.2.1;proto=https"))).as(bad)
                    .containsExactly("192.0.2.1", ForwardingHeaders.NO_FOR);
            assertThat(ForwardingHeaders.forwardedFor(List.of(bad, "for=192.0.2.1"))).as(bad)
                    .containsExactly("192.0.2.1", ForwardingHeaders.NO_FOR);
        }
    }

    @Test
    void quotedValuesAreReadFromTheRightWithTheirEscapes() {
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=\"a\\\\\", by=\"b\\\"c,d\";for=\"[::1]\"")))
                .containsExactly("[::1]", "a\\");
        assertThat(ForwardingHeaders.forwardedFor(List.of("for=x;host=\"a,b;c\"", " , ,"))).containsExactly("x");
        assertThat(ForwardingHeaders.forwardedFor(List.of(" ", ""))).as("no element at all").isEmpty();
    }

    @Test
    void atMost32HopsAreRead() {
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < 33; i++) {
            elements.add("for=10.0.0." + i);
        }
        // the hops left unread are marked, so that the walk knows the chain went on
        List<String> forwarded = ForwardingHeaders.forwardedFor(List.of(String.join(",", elements)));
        assertThat(forwarded).hasSize(ForwardingHeaders.MAX_HOPS + 1).startsWith("10.0.0.32")
                .endsWith("10.0.0.1", ForwardingHeaders.NO_FOR);
        assertThat(ForwardingHeaders.forwardedFor(elements.subList(1, 33))).hasSize(ForwardingHeaders.MAX_HOPS)
                .endsWith("10.0.0.1");

        List<String> oneLine = ForwardingHeaders.xForwardedFor(List.of(String.join(",",
                elements.stream().map(e -> e.substring(4)).toList())));
        assertThat(oneLine).hasSize(ForwardingHeaders.MAX_HOPS + 1).startsWith("10.0.0.32")
                .endsWith("10.0.0.1", ForwardingHeaders.NO_FOR);
        List<String> lines = ForwardingHeaders.xForwardedFor(elements.stream().map(e -> e.substring(4)).toList());
        assertThat(lines).hasSize(ForwardingHeaders.MAX_HOPS + 1).startsWith("10.0.0.32")
                .endsWith("10.0.0.1", ForwardingHeaders.NO_FOR);
        assertThat(ForwardingHeaders.xForwardedFor(List.of("10.0.0.0, , ", "10.0.0.1"))).containsExactly("10.0.0.1",
                "10.0.0.0");
    }

    @Test
    void aForwardedHeaderOfAtMost8192CharactersCountingOneSeparatorPerLineIsRead() {
        String longest = padded("for=192.0.2.1;x=", ForwardingHeaders.MAX_HEADER_CHARS - 1);
        assertThat(ForwardingHeaders.forwardedFor(List.of(longest))).containsExactly("192.0.2.1");
        String tooLong = padded("for=192.0.2.1;x=", ForwardingHeaders.MAX_HEADER_CHARS);
        assertThat(ForwardingHeaders.forwardedFor(List.of(tooLong))).containsExactly(ForwardingHeaders.NO_FOR);
        assertThat(ForwardingHeaders.forwardedFor(List.of(tooLong + ", for=192.0.2.2")))
                .as("read from the end up to the cut").containsExactly("192.0.2.2", ForwardingHeaders.NO_FOR);
    }

    @Test
    void anXForwardedForHeaderOfAtMost8192CharactersIsRead() {
        String longest = " ".repeat(ForwardingHeaders.MAX_HEADER_CHARS - 1 - "192.0.2.1".length()) + "192.0.2.1";
        assertThat(ForwardingHeaders.xForwardedFor(List.of(longest))).containsExactly("192.0.2.1");
        String tooLong = " " + longest;
        assertThat(ForwardingHeaders.xForwardedFor(List.of(tooLong))).containsExactly(ForwardingHeaders.NO_FOR);
    }

    private static String padded(String start, int length) {
        return start + "a".repeat(length - start.length());
    }

    @Test
    void aForwardedLineOfExactlyTheBoundIsReadWholeAndOneCharacterMoreCutsItsFarthestElement() {
        String near = ", for=192.0.2.1";
        for (String open : List.of("for=\"", "for=\"\\\\")) {
            int n = ForwardingHeaders.MAX_HEADER_CHARS - 1 - open.length() - 1 - near.length();
            String fits = open + "a".repeat(n) + "\"" + near;
            assertThat(fits).hasSize(ForwardingHeaders.MAX_HEADER_CHARS - 1); // and its separator: the bound
            assertThat(ForwardingHeaders.forwardedFor(List.of(fits))).as(open)
                    .containsExactly("192.0.2.1", (open.endsWith("\\") ? "\\" : "") + "a".repeat(n));
            String over = open + "a".repeat(n + 1) + "\"" + near;
            assertThat(ForwardingHeaders.forwardedFor(List.of(over))).as(open)
                    .containsExactly("192.0.2.1", ForwardingHeaders.NO_FOR);
        }
    }

    @Test
    void theBoundCountsEveryLineFromTheNearestAndCutsTheFirstElementThatReachesPastIt() {
        String far = "for=192.0.2.9";
        for (int budgetLeft : new int[] {far.length() + 1, far.length()}) {
            String near = "for=\"" + "a".repeat(ForwardingHeaders.MAX_HEADER_CHARS - budgetLeft - 1 - 6) + "\"";
            assertThat(ForwardingHeaders.MAX_HEADER_CHARS - near.length() - 1).isEqualTo(budgetLeft);
            List<String> nodes = ForwardingHeaders.forwardedFor(List.of(far, near));
            assertThat(nodes).as("%d characters left for the far line", budgetLeft).hasSize(2);
            assertThat(nodes.get(1)).as("%d characters left for the far line", budgetLeft)
                    .isEqualTo(budgetLeft > far.length() ? "192.0.2.9" : ForwardingHeaders.NO_FOR);
        }
    }

    @Test
    void anXForwardedForLineOfExactlyTheBoundIsReadWhole() {
        String near = ",192.0.2.1";
        String fits = "1".repeat(ForwardingHeaders.MAX_HEADER_CHARS - 1 - near.length()) + near;
        assertThat(ForwardingHeaders.xForwardedFor(List.of(fits))).hasSize(2).startsWith("192.0.2.1")
                .doesNotContain(ForwardingHeaders.NO_FOR);
        String over = "1" + fits;
        assertThat(ForwardingHeaders.xForwardedFor(List.of(over))).containsExactly("192.0.2.1",
                ForwardingHeaders.NO_FOR);
    }

    @Test
    void whitespaceThatReachesPastTheBoundEndsTheWalkOnceWhereverItStands() {
        int bound = ForwardingHeaders.MAX_HEADER_CHARS;
        for (String tail : List.of(", for=192.0.2.1", ";for=192.0.2.1", "for=192.0.2.1")) {
            String line = " ".repeat(bound - tail.length()) + tail;
            List<String> nodes = ForwardingHeaders.forwardedFor(List.of(line));
            if (tail.startsWith(",")) {
                assertThat(nodes).as(tail).containsExactly("192.0.2.1", ForwardingHeaders.NO_FOR);
            } else {
                assertThat(nodes).as("%s: its element reaches past the bound", tail)
                        .containsExactly(ForwardingHeaders.NO_FOR);
            }
            assertThat(ForwardingHeaders.forwardedFor(List.of(line.substring(1)))).as("%s within the bound", tail)
                    .containsExactly("192.0.2.1");
        }
    }
}
