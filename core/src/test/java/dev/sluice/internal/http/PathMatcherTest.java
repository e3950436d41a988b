package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PathMatcherTest {

    static PolicyConfig policy(String name, List<String> paths, Set<String> methods) {
        return new PolicyConfig(name, List.of(new Bandwidth(5, Duration.ofMinutes(1), 5)), KeySpec.IP, paths, methods, 1, true);
    }

    private static List<String> names(List<PolicyConfig> policies) {
        return policies.stream().map(PolicyConfig::name).toList();
    }

    @Test
    void matchesExactPathsOnly() {
        PathMatcher m = PathMatcher.of(List.of(policy("login", List.of("/login"), Set.of())));
        assertThat(names(m.matching("POST", "/login"))).containsExactly("login");
        assertThat(m.matching("POST", "/Login")).isEmpty();
        assertThat(m.matching("POST", "/login2")).isEmpty();
    }

    @Test
    void matchesThePathAsKeysCountIt() {
        PathMatcher m = PathMatcher.of(List.of(policy("login", List.of("/login"), Set.of())));
        for (String spelling : List.of("/login/", "/login;jsessionid=x", "/x/../login", "/./login", "//login",
                "/login//", "/login/.")) {
            assertThat(names(m.matching("POST", spelling))).as(spelling).containsExactly("login");
        }
        assertThat(PathMatcher.canonical("/login/")).isEqualTo("/login");
        assertThat(PathMatcher.canonical("/a;b/c;d/")).isEqualTo("/a/c");
    }

    @Test
    void matchesAPrefixAndEverythingBelowIt() {
        PathMatcher m = PathMatcher.of(List.of(policy("api", List.of("/api/*"), Set.of())));
        assertThat(m.matching("GET", "/api")).hasSize(1);
        assertThat(m.matching("GET", "/api/")).hasSize(1);
        assertThat(m.matching("GET", "/api/v1/orders")).hasSize(1);
        assertThat(m.matching("GET", "/apiary")).isEmpty();
        assertThat(m.matching("GET", "/")).isEmpty();
    }

    @Test
    void matchesExtensionsOnTheLastSegment() {
        PathMatcher m = PathMatcher.of(List.of(policy("jsp", List.of("*.jsp"), Set.of())));
        assertThat(m.matching("GET", "/a/b/page.jsp")).hasSize(1);
        assertThat(m.matching("GET", "/.jsp")).hasSize(1);
        assertThat(m.matching("GET", "/a.jsp/b")).isEmpty();
        assertThat(m.matching("GET", "/page.jspx")).isEmpty();
        assertThat(m.matching("GET", "/page.tar.jsp")).hasSize(1);
    }

    @Test
    void treatsSlashAndSlashStarAsEverything() {
        PathMatcher m = PathMatcher.of(List.of(policy("all", List.of("/"), Set.of()), policy("star", List.of("/*"), Set.of())));
        assertThat(names(m.matching("GET", "/anything/at/all"))).containsExactly("all", "star");
        assertThat(names(m.matching("GET", "/"))).containsExactly("all", "star");
    }

    @Test
    void treatsTheEmptyPatternAsTheApplicationRoot() {
        PathMatcher m = PathMatcher.of(List.of(policy("root", List.of(""), Set.of())));
        assertThat(m.matching("GET", "/")).hasSize(1);
        assertThat(m.matching("GET", "/x")).isEmpty();
    }

    @Test
    void filtersByMethod() {
        PathMatcher m = PathMatcher.of(List.of(policy("login", List.of("/login"), Set.of("POST"))));
        assertThat(m.matching("POST", "/login")).hasSize(1);
        assertThat(m.matching("GET", "/login")).isEmpty();
    }

    @Test
    void returnsEveryMatchingPolicyOrderedByName() {
        PathMatcher m = PathMatcher.of(List.of(
                policy("zeta", List.of("/api/*"), Set.of()),
                policy("alpha", List.of("/api/orders", "*.json"), Set.of()),
                policy("other", List.of("/other/*"), Set.of())));
        assertThat(names(m.matching("GET", "/api/orders"))).containsExactly("alpha", "zeta");
        assertThat(names(m.matching("GET", "/x/y.json"))).containsExactly("alpha");
    }

    @Test
    void ignoresDisabledPoliciesAndPoliciesWithoutPaths() {
        PolicyConfig disabled = new PolicyConfig("off", List.of(new Bandwidth(5, Duration.ofMinutes(1), 5)), KeySpec.IP,
                List.of("/*"), Set.of(), 1, false);
        PathMatcher m = PathMatcher.of(List.of(disabled, policy("jaxrsOnly", List.of(), Set.of())));
        assertThat(m.matching("GET", "/x")).isEmpty();
        assertThat(m.isEmpty()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"login", "/api/**", "/api*", "*.tar.gz", "*.", "/a/*/b", "*/x", "**"})
    void rejectsPatternsThatAreNotServletUrlPatterns(String pattern) {
        assertThatThrownBy(() -> PathMatcher.of(List.of(policy("bad", List.of(pattern), Set.of()))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.limit.bad.paths")
                .hasMessageContaining(pattern)
                .hasMessageContaining("/api/*");
    }

    @Test
    void anExactPatternAlsoCoversTheSamePathWithATrailingSlash() {
        PathMatcher m = PathMatcher.of(List.of(policy("login", List.of("/api/login"), Set.of())));
        assertThat(names(m.matching("POST", "/api/login/"))).containsExactly("login");
        assertThat(names(m.matching("POST", "/api/login//"))).as("empty segments count for nothing")
                .containsExactly("login");
        assertThat(m.matching("POST", "/api/login/x")).isEmpty();
        PathMatcher written = PathMatcher.of(List.of(policy("login", List.of("/api/login/"), Set.of())));
        assertThat(names(written.matching("POST", "/api/login"))).as("a pattern with a trailing slash")
                .containsExactly("login");
    }

    @Test
    void matchesMethodsWhateverTheirCase() {
        PathMatcher m = PathMatcher.of(List.of(policy("login", List.of("/login"), Set.of("POST"))));
        assertThat(names(m.matching("post", "/login"))).containsExactly("login");
        assertThat(names(m.matching("PoSt", "/login"))).containsExactly("login");
        assertThat(m.matching("GET", "/login")).isEmpty();
    }

    @Test
    void aPolicyListingGetAlsoChargesHead() {
        PathMatcher m = PathMatcher.of(List.of(policy("page", List.of("/page"), Set.of("GET"))));
        assertThat(names(m.matching("HEAD", "/page"))).containsExactly("page");
        assertThat(names(m.matching("head", "/page"))).containsExactly("page");
        assertThat(policy("p", List.of(), Set.of("GET")).appliesTo("Head")).isTrue();
        assertThat(policy("p", List.of(), Set.of("HEAD")).appliesTo("GET")).as("HEAD does not imply GET").isFalse();
        assertThat(policy("p", List.of(), Set.of("POST")).appliesTo("HEAD")).isFalse();
    }

    @Test
    void doesNotUpperCaseBeyondAscii() {
        // "ı" (dotless i) upper-cases to "I" in Java's full case mapping; an HTTP method is ASCII only
        assertThat(policy("p", List.of(), Set.of("DELETE")).appliesTo("delete")).isTrue();
        assertThat(policy("p", List.of(), Set.of("LIST")).appliesTo("l\u0131st")).isFalse();
    }
}
