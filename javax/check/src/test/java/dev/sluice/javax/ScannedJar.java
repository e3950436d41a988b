package dev.sluice.javax;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Every class file (parsed) and every other resource (as text) of one JAR, read once. The failsafe run
 * names each JAR's file in a system property {@code sluice.jar.<name>}.
 */
final class ScannedJar {

    final String name;
    final Map<String, ClassFile> classes = new LinkedHashMap<>();
    final Map<String, String> resources = new LinkedHashMap<>();

    private ScannedJar(String name) {
        this.name = name;
    }

    /** The JAR that the build names {@code sluice.jar.<name>}, e.g. {@code core-javax}. */
    static ScannedJar named(String name) {
        String path = System.getProperty("sluice.jar." + name);
        if (path == null || !Files.isRegularFile(Path.of(path))) {
            throw new IllegalStateException("sluice.jar." + name + " is " + path
                    + ": run this test through Maven (mvn verify), which builds the JARs and names them");
        }
        ScannedJar jar = new ScannedJar(name + " (" + Path.of(path).getFileName() + ")");
        try (JarFile file = new JarFile(path)) {
            Enumeration<JarEntry> entries = file.entries();
            for (JarEntry entry : Collections.list(entries)) {
                if (entry.isDirectory()) {
                    continue;
                }
                byte[] bytes = file.getInputStream(entry).readAllBytes();
                if (entry.getName().endsWith(".class")) {
                    jar.classes.put(entry.getName(), ClassFile.parse(bytes));
                } else {
                    jar.resources.put(entry.getName(), new String(bytes, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
        return jar;
    }

    @Override
    public String toString() {
        return name;
    }
}
