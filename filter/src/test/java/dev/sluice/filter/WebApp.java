package dev.sluice.filter;

import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A real web application on an embedded Jetty 12 (Servlet 6, ee10) on a free loopback port, laid out as an
 * exploded WAR in a temporary folder: {@code WEB-INF/web.xml} as given, and, for the auto-registration
 * mode, this module's compiled classes and {@code META-INF/web-fragment.xml} packed as
 * {@code WEB-INF/lib/sluice-filter.jar}, where the container discovers the fragment like on any server.
 *
 * <p>Classes load parent-first, so the application sees the same Sluice classes as the test (one copy);
 * the jar in {@code WEB-INF/lib} is still what the container scans for the fragment.
 */
final class WebApp implements AutoCloseable {

    static final String CONTEXT_PATH = "/app";

    /** Room for the 64 KB header and query values the hostile-input tests send (Jetty's default is 8 KB). */
    private static final int REQUEST_HEADER_BYTES = 256 * 1024;

    private final Server server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    private WebApp(Server server, URI base) {
        this.server = server;
        this.base = base;
    }

    /**
     * Starts an application.
     *
     * @param root        empty folder for the exploded WAR
     * @param webXmlBody  the content of {@code <web-app>}; the protected servlet is added, mapped to {@code /}
     * @param withFragment whether {@code sluice-filter.jar} goes into {@code WEB-INF/lib}
     */
    static WebApp start(Path root, String webXmlBody, boolean withFragment) throws Exception {
        Path webInf = Files.createDirectories(root.resolve("WEB-INF"));
        Files.writeString(webInf.resolve("web.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee"
                         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                         xsi:schemaLocation="https://jakarta.ee/xml/ns/jakartaee https://jakarta.ee/xml/ns/jakartaee/web-app_5_0.xsd"
                         version="5.0">
                  <servlet>
                    <servlet-name>resource</servlet-name>
                    <servlet-class>dev.sluice.filter.ProtectedServlet</servlet-class>
                    <async-supported>true</async-supported>
                  </servlet>
                  <servlet-mapping>
                    <servlet-name>resource</servlet-name>
                    <url-pattern>/</url-pattern>
                  </servlet-mapping>
                """ + webXmlBody + "\n</web-app>\n", StandardCharsets.UTF_8);
        if (withFragment) {
            Path lib = Files.createDirectories(webInf.resolve("lib"));
            packFilterJar(lib.resolve("sluice-filter.jar"));
        }

        Server server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(REQUEST_HEADER_BYTES);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        WebAppContext context = new WebAppContext();
        context.setContextPath(CONTEXT_PATH);
        context.setWar(root.toString());
        context.setParentLoaderPriority(true);
        context.setThrowUnavailableOnStartupException(true);
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new WebApp(server, new URI("http://127.0.0.1:" + connector.getLocalPort() + CONTEXT_PATH));
    }

    /** The filter's classes and resources, as the released jar would hold them. */
    private static void packFilterJar(Path jar) throws IOException, URISyntaxException {
        Path classes = Path.of(RateLimitFilter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isRegularFile(classes)) {
            Files.copy(classes, jar);
            return;
        }
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    URI uri(String pathAndQuery) {
        return URI.create(base + pathAndQuery);
    }

    /** GET with optional header name/value pairs. */
    HttpResponse<String> get(String pathAndQuery, String... headers) throws IOException, InterruptedException {
        return send("GET", pathAndQuery, headers);
    }

    HttpResponse<String> send(String method, String pathAndQuery, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
