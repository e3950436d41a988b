package dev.sluice.docs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles a Java snippet against Sluice's public API and the Jakarta EE APIs a reader would have.
 *
 * <p>Conventions the pages follow: a method body written {@code { ... }}, or a line holding only
 * {@code ...}, stands for the reader's code. A fragment (members of a class, or statements) is wrapped in
 * a class that has an injected {@code Sluice sluice} field; leading {@code @Inject} field lines of a
 * statement fragment become fields. The reader's own objects are allowed to be undeclared: an unknown
 * <em>variable</em> ({@code repository}, {@code invoice}) is not an error, and the reader's domain types
 * ({@link #DOMAIN_TYPES}) exist as empty classes. An unknown class, method or annotation member of an API
 * is an error.
 */
final class SnippetJava {

    /** Types the examples use for the reader's own classes. */
    static final List<String> DOMAIN_TYPES = List.of("Ticket", "Invoice", "Hit", "Order", "Account", "Report",
            "SearchResource", "OrderResource");

    private static final String IMPORTS = Stream.of(
            "dev.sluice", "dev.sluice.filter", "dev.sluice.jaxrs",
            "java.io", "java.util", "java.util.concurrent", "java.time", "java.math",
            "jakarta.inject", "jakarta.enterprise.context", "jakarta.enterprise.inject.spi", "jakarta.annotation", "jakarta.transaction",
            "jakarta.persistence", "jakarta.servlet", "jakarta.servlet.http", "jakarta.servlet.annotation",
            "jakarta.ws.rs", "jakarta.ws.rs.core", "jakarta.ws.rs.ext")
            .map(p -> "import " + p + ".*;").collect(Collectors.joining(" ")) + "\n";

    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "(?m)^(public\\s+|final\\s+|abstract\\s+)*(class|interface|record|enum|@interface)\\s+(\\w+)");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+(final\\s+|abstract\\s+)*(class|interface|record|enum|@interface)\\s+(\\w+)");
    private static final Pattern ELLIPSIS_BODY = Pattern.compile("\\{\\s*\\.\\.\\.\\s*}");
    private static final Pattern ELLIPSIS_LINE = Pattern.compile("(?m)^(\\s*)\\.\\.\\.\\s*$");
    private static final Pattern INJECTED_FIELD = Pattern.compile("^@Inject\\s+[\\w<>, ]+\\s+\\w+;\\s*$");
    private static final Pattern UNKNOWN_VARIABLE = Pattern.compile("symbol:\\s+variable\\s+\\w+");
    private static final Pattern ONLY_ANNOTATIONS = Pattern.compile("(?s)\\s*(@\\w+(\\([^)]*\\))?\\s*)+");

    private final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    private final String classpath;

    /**
     * @param classpath what the snippets compile against: the test class path (a JAR on it that only lists
     *                  others in its manifest, as Surefire's booter does, is followed by javac)
     */
    SnippetJava(String classpath) {
        this.classpath = classpath;
    }

    /**
     * The compiler's errors for the snippet; empty when it compiles.
     *
     * @param companions the page's other snippets: those that declare a public type are compiled with it
     *                   (a page that shows a resource and then the {@code Application} listing it), but
     *                   only the snippet's own errors count
     */
    List<String> errors(String snippet, List<String> companions) {
        String code = expand(snippet);
        List<String> others = new ArrayList<>();
        Set<String> declared = new LinkedHashSet<>();
        Matcher own = PUBLIC_TYPE.matcher(code);
        if (own.find()) {
            declared.add(own.group(3));
        }
        for (String c : companions) {
            String other = expand(c);
            Matcher m = PUBLIC_TYPE.matcher(other);
            if (m.find() && declared.add(m.group(3))) {
                others.add(unit(other));
            }
        }
        this.companions = others;
        if (TYPE_DECLARATION.matcher(code).find()) {
            return compile(unit(code));
        }
        if (ONLY_ANNOTATIONS.matcher(code).matches()) {
            return compile(wrapper("", code + " void annotated() {}\n"));
        }
        List<String> asMembers = compile(wrapper("", code));
        if (asMembers.isEmpty()) {
            return asMembers;
        }
        List<String> fields = new ArrayList<>();
        List<String> statements = new ArrayList<>();
        for (String line : code.split("\n", -1)) {
            (statements.isEmpty() && INJECTED_FIELD.matcher(line).matches() ? fields : statements).add(line);
        }
        List<String> asStatements = compile(wrapper(String.join("\n", fields),
                "void snippet() throws Exception {\n" + String.join("\n", statements) + "\n}\n"));
        if (asStatements.isEmpty()) {
            return asStatements;
        }
        List<String> both = new ArrayList<>();
        both.add("as class members:");
        both.addAll(asMembers);
        both.add("as statements:");
        both.addAll(asStatements);
        return both;
    }

    private List<String> companions = List.of();

    private static String expand(String snippet) {
        return ELLIPSIS_LINE.matcher(ELLIPSIS_BODY.matcher(snippet)
                .replaceAll("{ throw new UnsupportedOperationException(); }"))
                .replaceAll("$1throw new UnsupportedOperationException();");
    }

    private static String typeName(String source) {
        Matcher pub = PUBLIC_TYPE.matcher(source);
        return pub.find() ? pub.group(3) : "Snippet";
    }

    private static String unit(String code) {
        return code.stripLeading().startsWith("package ") ? code : IMPORTS + code;
    }

    private static String wrapper(String fields, String body) {
        String sluiceField = fields.matches("(?s).*\\bSluice\\s+sluice\\b.*") ? "" : "@Inject Sluice sluice;\n";
        return IMPORTS + "class Snippet {\n" + sluiceField + fields + "\n" + body + "\n}\n";
    }

    private List<String> compile(String source) {
        JavaFileObject main = source(typeName(source), source);
        List<JavaFileObject> units = new ArrayList<>();
        units.add(main);
        companions.forEach(c -> units.add(source(typeName(c), c)));
        String all = source + String.join("\n", companions);
        for (String type : DOMAIN_TYPES) {
            if (!Pattern.compile("(class|interface|record|enum)\\s+" + type + "\\b").matcher(all).find()) {
                units.add(source(type, "class " + type + " {}\n"));
            }
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out;
        try {
            out = Files.createTempDirectory("snippet");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            compiler.getTask(null, files, diagnostics, List.of("--release", "17", "-proc:none", "-parameters",
                    "-classpath", classpath, "-d", out.toString()), null, units).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            String message = d.getMessage(Locale.ROOT);
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() == main
                    && !UNKNOWN_VARIABLE.matcher(message).find()) {
                errors.add("line " + d.getLineNumber() + ": " + message);
            }
        }
        if (!errors.isEmpty()) {
            errors.add("compiled source:\n" + source);
        }
        return errors;
    }

    private static JavaFileObject source(String name, String code) {
        return new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }
}
