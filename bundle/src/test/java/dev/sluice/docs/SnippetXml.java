package dev.sluice.docs;

import java.io.StringReader;
import java.net.URL;
import java.util.Set;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.ls.LSInput;
import org.w3c.dom.ls.LSResourceResolver;
import org.xml.sax.InputSource;

/**
 * Checks an XML snippet: well-formed always; a {@code web-app} or {@code web-fragment} document, or
 * {@code web.xml} elements shown on their own (a {@code <filter>} and its {@code <filter-mapping>}, an
 * {@code <error-page>}), valid against the Servlet 5 schema from the jakarta.servlet-api JAR; a declared
 * {@code RateLimitFilter} has {@code <async-supported>true</async-supported>}, without which an
 * application's {@code startAsync()} behind it fails.
 */
final class SnippetXml {

    private static final String JAKARTAEE = "https://jakarta.ee/xml/ns/jakartaee";
    /** Elements that only appear as children of web-app or web-fragment. */
    private static final Set<String> WEB_XML_CHILDREN = Set.of("filter", "filter-mapping", "context-param",
            "error-page", "listener", "servlet", "servlet-mapping", "absolute-ordering", "ordering",
            "distributable", "security-constraint", "login-config", "session-config");

    private SnippetXml() {
    }

    /** @param validate whether to validate web.xml content (a block marked as a fragment is only parsed) */
    static void check(String text, boolean validate) throws Exception {
        String body = text.replaceFirst("^\\s*<\\?xml[^>]*\\?>", "");
        Document wrapped = parse("<snippet>" + body + "</snippet>"); // well-formed, any number of roots
        Element first = firstElement(wrapped.getDocumentElement());
        if (first == null) {
            throw new AssertionError("no element in the snippet");
        }
        checkAsyncSupported(wrapped);
        if (!validate) {
            return;
        }
        String name = first.getTagName();
        if (name.equals("web-app") || name.equals("web-fragment")) {
            validate(parse(body), name);
        } else if (WEB_XML_CHILDREN.contains(name)) {
            validate(parse("<web-app xmlns=\"" + JAKARTAEE + "\" version=\"5.0\">" + body + "</web-app>"), "web-app");
        }
    }

    static void checkAsyncSupported(Document doc) {
        var filters = doc.getElementsByTagNameNS("*", "filter");
        for (int i = 0; i < filters.getLength(); i++) {
            Element filter = (Element) filters.item(i);
            String filterClass = text(filter, "filter-class");
            if ("dev.sluice.filter.RateLimitFilter".equals(filterClass) && !"true".equals(text(filter, "async-supported"))) {
                throw new AssertionError("the <filter> of " + filterClass + " lacks <async-supported>true</async-supported>");
            }
        }
    }

    private static String text(Element parent, String child) {
        var nodes = parent.getElementsByTagNameNS("*", child);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().strip();
    }

    private static Element firstElement(Element parent) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                return e;
            }
        }
        return null;
    }

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        return f.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }

    private static void validate(Document doc, String root) throws Exception {
        String version = doc.getDocumentElement().getAttribute("version");
        if (!version.equals("5.0") && !version.equals("6.0")) {
            throw new AssertionError("<" + root + "> needs version=\"5.0\" (Servlet 5, EE 9.1) or \"6.0\"; was \""
                    + version + "\"");
        }
        if (!JAKARTAEE.equals(doc.getDocumentElement().getNamespaceURI())) {
            throw new AssertionError("<" + root + "> must be in the " + JAKARTAEE + " namespace");
        }
        // Servlet 6's schema differs from 5's only in the version it accepts; 5's is on the classpath.
        if (version.equals("6.0")) {
            doc.getDocumentElement().setAttribute("version", "5.0");
        }
        schema(root).newValidator().validate(new DOMSource(doc));
    }

    private static Schema schema(String root) throws Exception {
        URL xsd = SnippetXml.class.getResource("/jakarta/servlet/resources/" + root + "_5_0.xsd");
        SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        f.setResourceResolver(new XmlNamespaceSchema(f.getResourceResolver()));
        return f.newSchema(new StreamSource(xsd.openStream(), xsd.toExternalForm()));
    }

    /** Serves the XML namespace's own schema from the test resources instead of www.w3.org. */
    private record XmlNamespaceSchema(LSResourceResolver next) implements LSResourceResolver {
        @Override
        public LSInput resolveResource(String type, String ns, String publicId, String systemId, String base) {
            if (XMLConstants.XML_NS_URI.equals(ns)) {
                URL local = SnippetXml.class.getResource("xml.xsd");
                try {
                    var impl = (org.w3c.dom.ls.DOMImplementationLS) DocumentBuilderFactory.newInstance()
                            .newDocumentBuilder().getDOMImplementation();
                    LSInput in = impl.createLSInput();
                    in.setByteStream(local.openStream());
                    in.setSystemId(local.toExternalForm());
                    return in;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return next == null ? null : next.resolveResource(type, ns, publicId, systemId, base);
        }
    }
}
