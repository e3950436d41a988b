package dev.sluice.servers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.sluice.test.RedisServer;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servlet filter on an embedded Tomcat (no CDI, no MicroProfile Config), two web applications on one
 * Tomcat start, each deployed from a directory under {@code servers.webapps} as a user would deploy it:
 * <ul>
 *   <li>{@code /webxml}: the filter declared in {@code web.xml}, configured by its init-params (Redis
 *       included); the filter JAR with its dependencies in {@code WEB-INF/lib}.</li>
 *   <li>{@code /fragment}: only the bundle JAR in {@code WEB-INF/lib}; its web fragment registers the filter,
 *       which reads the fallback chain: context-params, system properties, environment variables (the
 *       failsafe run sets {@code SLUICE_LIMIT_ENVP_RATE=4/1m}), {@code microprofile-config.properties}.</li>
 * </ul>
 * The pages are static files served by Tomcat's default servlet; only the filter decides. Subclasses give
 * the {@code web.xml} root element of their Servlet version; the Tomcat API used here is the same in 9 and 11.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class FilterOnTomcatScenarios {

    @RegisterExtension
    protected static final RedisServer redis = RedisServer.standalone();

    private static final Map<String, String> SYSTEM_PROPERTIES = Map.of(
            "sluice.limit.sys.rate", "3/1m",
            "sluice.limit.sys.paths", "/sys",
            // A context-param of /fragment names the same key and must win.
            "sluice.limit.ctx.rate", "9/1m");

    private Tomcat tomcat;
    private URI root;

    /** The {@code <web-app ...>} start tag of the Servlet version under test. */
    protected abstract String webAppStartTag();

    @BeforeAll
    void startTomcat() throws Exception {
        // Not a sluice.* name: Sluice rejects unknown sluice.* keys in system properties.
        Path webapps = Path.of(System.getProperty("servers.webapps", "target/webapps"));
        Path webxml = webapps.resolve("webxml");
        Path fragment = webapps.resolve("fragment");
        assertThat(webxml.resolve("WEB-INF/lib")).as("run through Maven, which copies the libraries").isDirectory();

        write(webxml.resolve("WEB-INF/web.xml"), webApp("""
                  <filter>
                    <filter-name>sluice</filter-name>
                    <filter-class>dev.sluice.filter.RateLimitFilter</filter-class>
                    <init-param><param-name>sluice.redis.uri</param-name><param-value>%s</param-value></init-param>
                    <init-param><param-name>sluice.key-prefix</param-name><param-value>webxml</param-value></init-param>
                    <init-param><param-name>sluice.limit.login.rate</param-name><param-value>3/1m</param-value></init-param>
                    <init-param><param-name>sluice.limit.login.paths</param-name><param-value>/login</param-value></init-param>
                  </filter>
                  <filter-mapping><filter-name>sluice</filter-name><url-pattern>/*</url-pattern></filter-mapping>
                """.formatted(redis.uri())));
        write(fragment.resolve("WEB-INF/web.xml"), webApp("""
                  <context-param><param-name>sluice.key-prefix</param-name><param-value>fragment</param-value></context-param>
                  <context-param><param-name>sluice.limit.ctx.rate</param-name><param-value>2/1m</param-value></context-param>
                  <context-param><param-name>sluice.limit.ctx.paths</param-name><param-value>/ctx</param-value></context-param>
                """));
        write(fragment.resolve("WEB-INF/classes/META-INF/microprofile-config.properties"), """
                sluice.limit.file.rate=5/1m
                sluice.limit.file.paths=/file
                sluice.limit.envp.rate=40/1m
                sluice.limit.envp.paths=/envp
                """);
        for (String page : List.of("login", "other", "ctx", "sys", "envp", "file")) {
            write(webxml.resolve(page), "page " + page + "\n");
            write(fragment.resolve(page), "page " + page + "\n");
        }

        System.setProperty("sluice.redis.uri", redis.uri());
        SYSTEM_PROPERTIES.forEach(System::setProperty);

        tomcat = new Tomcat();
        tomcat.setBaseDir(webapps.resolve("tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        // Each web.xml maps the default servlet itself; no JSP engine is on the class path.
        tomcat.setAddDefaultWebXmlToWebapp(false);
        for (Path app : List.of(webxml, fragment)) {
            Context context = tomcat.addWebapp("/" + app.getFileName(), app.toAbsolutePath().toString());
            // Only WEB-INF/lib, as in a deployed application: the test's own class path holds these JARs too.
            StandardJarScanner scanner = new StandardJarScanner();
            scanner.setScanClassPath(false);
            context.setJarScanner(scanner);
        }
        tomcat.start();
        for (org.apache.catalina.Container context : tomcat.getHost().findChildren()) {
            assertThat(((Context) context).getState()).as("%s started (see the Tomcat log above)", context.getName())
                    .isEqualTo(LifecycleState.STARTED);
        }
        root = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/");
    }

    @AfterAll
    void stopTomcat() throws LifecycleException {
        System.clearProperty("sluice.redis.uri");
        SYSTEM_PROPERTIES.keySet().forEach(System::clearProperty);
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    @Test
    public void initParamsInWebXmlConfigureTheDeclaredFilter() {
        spend(root.resolve("webxml/login"), "login", 3);
        assertThat(redis.admin().keys("webxml:rl:{login:*")).as("buckets in the init-param's Redis and prefix")
                .isNotEmpty();
    }

    @Test
    public void aPathThatNoPolicyMatchesPassesUntouched() {
        HttpResponse<String> other = Http.get(root.resolve("webxml/other"));
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("page other\n");
        assertThat(other.headers().firstValue("RateLimit")).isEmpty();
    }

    @Test
    public void contextParamsConfigureTheFragmentsFilterAndWinOverSystemProperties() {
        spend(root.resolve("fragment/ctx"), "ctx", 2);
        assertThat(redis.admin().keys("fragment:rl:{ctx:*")).as("the context-param's key prefix").isNotEmpty();
    }

    @Test
    public void systemPropertiesConfigureIt() {
        spend(root.resolve("fragment/sys"), "sys", 3);
    }

    @Test
    public void environmentVariablesOverrideMicroProfileConfigProperties() {
        spend(root.resolve("fragment/envp"), "envp", 4);
    }

    @Test
    public void microProfileConfigPropertiesConfigureIt() {
        spend(root.resolve("fragment/file"), "file", 5);
    }

    /** {@code limit} requests are admitted with the policy's headers, the next one gets the 429. */
    private void spend(URI page, String policy, int limit) {
        for (int remaining = limit - 1; remaining >= 0; remaining--) {
            HttpResponse<String> allowed = Http.get(page);
            assertThat(assertAllowed(allowed, policy, limit, 60).remaining()).as("%s", page).isEqualTo(remaining);
            assertThat(allowed.body()).startsWith("page ");
        }
        HttpResponse<String> denied = Http.get(page);
        assertTooManyRequests(denied, policy, limit, 60);
        assertThat(denied.body()).doesNotContain("page ");
    }

    /** A {@code web.xml} that maps everything to the default servlet. */
    private String webApp(String sluicePart) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                %s
                %s
                  <servlet>
                    <servlet-name>default</servlet-name>
                    <servlet-class>org.apache.catalina.servlets.DefaultServlet</servlet-class>
                  </servlet>
                  <servlet-mapping><servlet-name>default</servlet-name><url-pattern>/</url-pattern></servlet-mapping>
                </web-app>
                """.formatted(webAppStartTag(), sluicePart);
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
