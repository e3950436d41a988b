package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;

import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.util.SafeEncoder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A Lua script as Redis will run it: its name, its source text and the SHA-1 that {@code EVALSHA} calls it by,
 * computed locally so that no round trip is needed to learn it.
 *
 * <p>Bundled scripts live at {@code dev/sluice/scripts/<name>.lua} on the classpath. An operator may replace one
 * with {@code sluice.script.<name>} = {@code classpath:/path.lua} or {@code file:/path.lua}; the replacement is
 * validated when {@link ScriptExecutor#preload} loads it into Redis at startup.
 *
 * <p>A line {@code --#include <fragment>.lua} in a script read from a location (bundled or replacement, not
 * {@link #of}) is replaced by the bundled fragment {@code dev/sluice/scripts/include/<fragment>.lua}: Lua written once
 * for several scripts, such as {@code permit-set.lua}, the permit set of semaphores and concurrency limits. Each
 * script is still one text, loaded and called by one SHA. Fragments are not scripts: they cannot be replaced on their
 * own and include nothing themselves. A script without such a line is sent exactly as written. Redis counts lines in
 * the composed text, so {@link #location()} says which lines came from which fragment.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class LuaScript {

    /** Where bundled scripts live on the classpath. */
    static final String BUNDLED_DIRECTORY = "dev/sluice/scripts/";
    /** Where the fragments that scripts include live on the classpath. */
    static final String FRAGMENT_DIRECTORY = BUNDLED_DIRECTORY + "include/";
    /** A script's line that includes a fragment: {@code --#include permit-set.lua}. */
    static final String INCLUDE = "--#include";

    private static final String CLASSPATH_PREFIX = "classpath:";
    private static final String FILE_PREFIX = "file:";
    private static final String ACCEPTED_LOCATIONS = "classpath:/path/to/script.lua or file:/path/to/script.lua";
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
    private static final Pattern INCLUDED = Pattern.compile("([a-z0-9][a-z0-9-]*)\\.lua");

    private final String name;
    private final String source;
    private final String sha;
    private final String location;
    private final ScriptCommand.Encoded shaArgument;

    private LuaScript(String name, String source, String location) {
        this.name = name;
        this.source = source;
        this.sha = sha1Hex(source);
        this.location = location;
        this.shaArgument = new ScriptCommand.Encoded(SafeEncoder.encode(sha));
    }

    /**
     * The script called {@code name}: the location configured under {@code sluice.script.<name>} when
     * {@code config} has one, else the bundled {@code dev/sluice/scripts/<name>.lua}.
     *
     * @param name   lower-case letters, digits and dashes, e.g. {@code gcra}
     * @param config looks a configuration key up (for example {@code ConfigSource::get}); absent = bundled script
     * @throws SluiceConfigException naming {@code sluice.script.<name>} when the configured location has an
     *                               unknown form, does not exist, cannot be read or is empty
     * @throws IllegalStateException when the bundled script is missing (a packaging error, not a config error)
     */
    public static LuaScript load(String name, Function<String, Optional<String>> config) {
        checkName(name);
        Optional<String> override = config.apply(configKey(name)).map(String::trim).filter(s -> !s.isEmpty());
        return override.isPresent() ? fromLocation(name, override.get()) : bundled(name);
    }

    /** The bundled script {@code dev/sluice/scripts/<name>.lua}, ignoring any configured replacement. */
    public static LuaScript bundled(String name) {
        checkName(name);
        String resource = BUNDLED_DIRECTORY + name + ".lua";
        String text = readResource(resource, LuaScript.class.getClassLoader())
                .orElseThrow(() -> new IllegalStateException("bundled Lua script " + resource
                        + " is missing from the classpath; the Sluice jar is incomplete"));
        return composed(name, text, CLASSPATH_PREFIX + "/" + resource, problem -> new IllegalStateException(
                "bundled Lua script " + resource + " " + problem + "; the Sluice jar is broken"));
    }

    /** A script from source text already in hand, taken as it is (no includes); {@code location} only serves messages. */
    public static LuaScript of(String name, String source, String location) {
        checkName(name);
        return new LuaScript(name, stripBom(Objects.requireNonNull(source, "source")),
                Objects.requireNonNull(location, "location"));
    }

    /** The configuration key that replaces the script called {@code name}: {@code sluice.script.<name>}. */
    public static String configKey(String name) {
        return "sluice.script." + name;
    }

    /** The script's name, e.g. {@code gcra}. */
    public String name() {
        return name;
    }

    /** The Lua source text exactly as sent to {@code SCRIPT LOAD}. */
    public String source() {
        return source;
    }

    /** Lower-case hex SHA-1 of the UTF-8 source: the name Redis knows the script by. */
    public String sha() {
        return sha;
    }

    /**
     * Where the source came from, e.g. {@code classpath:/dev/sluice/scripts/gcra.lua}; for a script that includes a
     * fragment also the lines it fills, e.g. {@code file:/etc/sluice/gcra.lua (lines 76-160 from
     * classpath:/dev/sluice/scripts/include/permit-set.lua)}.
     */
    public String location() {
        return location;
    }

    /** The configuration key that replaces this script. */
    public String configKey() {
        return configKey(name);
    }

    /** {@link #sha()} as {@code EVALSHA}'s argument, encoded once. */
    Rawable shaArgument() {
        return shaArgument;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LuaScript other && name.equals(other.name) && sha.equals(other.sha);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + sha.hashCode();
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", sha=" + sha + ", location=" + location + "]";
    }

    private static LuaScript fromLocation(String name, String location) {
        String key = configKey(name);
        Optional<String> text;
        if (location.startsWith(CLASSPATH_PREFIX)) {
            String resource = location.substring(CLASSPATH_PREFIX.length()).replaceFirst("^/+", "");
            // The application's own loader first: that is where an operator's replacement lives.
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            text = readResource(resource, context);
            if (text.isEmpty() && context != LuaScript.class.getClassLoader()) {
                text = readResource(resource, LuaScript.class.getClassLoader());
            }
        } else if (location.startsWith(FILE_PREFIX)) {
            text = readFile(key, location);
        } else {
            throw ConfigProblems.invalid(key, location, ACCEPTED_LOCATIONS);
        }
        String source = text.orElseThrow(() -> ConfigProblems.invalid(key, location,
                "does not exist or cannot be read", ACCEPTED_LOCATIONS + " naming a readable Lua file"));
        if (source.isBlank()) {
            throw ConfigProblems.invalid(key, location, "is empty", "a Lua script");
        }
        return composed(name, source, location, problem -> ConfigProblems.invalid(key, location, problem,
                "a Lua script whose " + INCLUDE + " lines name a fragment Sluice bundles, such as permit-set.lua"));
    }

    /**
     * The script with each {@value #INCLUDE} line replaced by the bundled fragment it names; {@code text} itself when
     * it has none.
     */
    private static LuaScript composed(String name, String text, String location,
            Function<String, RuntimeException> problem) {
        if (!text.contains(INCLUDE)) {
            return new LuaScript(name, text, location);
        }
        StringBuilder source = new StringBuilder(text.length() + 4096);
        StringBuilder where = new StringBuilder(location);
        String[] lines = text.split("\n", -1);
        int line = 0;
        for (int i = 0; i < lines.length; i++) {
            String directive = lines[i].strip();
            if (!directive.startsWith(INCLUDE)) {
                source.append(lines[i]).append(i < lines.length - 1 ? "\n" : "");
                line++;
                continue;
            }
            String fragment = directive.substring(INCLUDE.length()).strip();
            if (!INCLUDED.matcher(fragment).matches()) {
                throw problem.apply("has the line \"" + directive + "\", which names no fragment");
            }
            String resource = FRAGMENT_DIRECTORY + fragment;
            String body = readResource(resource, LuaScript.class.getClassLoader()).orElseThrow(() -> problem.apply(
                    "includes " + fragment + ", which is not a fragment Sluice bundles"));
            if (body.lines().anyMatch(l -> l.strip().startsWith(INCLUDE))) {
                throw new IllegalStateException("Lua fragment " + resource + " includes another; fragments include"
                        + " nothing, the Sluice jar is broken");
            }
            body = body.endsWith("\n") ? body.substring(0, body.length() - 1) : body;
            int length = body.split("\n", -1).length;
            source.append(body).append('\n');
            where.append(where.length() == location.length() ? " (" : ", ").append("lines ").append(line + 1)
                    .append('-').append(line + length).append(" from ").append(CLASSPATH_PREFIX).append('/')
                    .append(resource);
            line += length;
        }
        if (where.length() > location.length()) {
            where.append(')');
        }
        return new LuaScript(name, source.toString(), where.toString());
    }

    private static Optional<String> readResource(String resource, ClassLoader loader) {
        if (loader == null) {
            return Optional.empty();
        }
        try (InputStream in = loader.getResourceAsStream(resource)) {
            return in == null ? Optional.empty()
                    : Optional.of(stripBom(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> readFile(String key, String location) {
        Path path;
        try {
            path = location.startsWith("file://") ? Path.of(URI.create(location))
                    : Path.of(location.substring(FILE_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw ConfigProblems.invalid(key, location, ACCEPTED_LOCATIONS);
        }
        if (!Files.isRegularFile(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(stripBom(Files.readString(path, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Editors on some platforms prepend a byte-order mark, which Lua rejects as a syntax error. */
    private static String stripBom(String text) {
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("script name \"" + name
                    + "\" is invalid; expected lower-case letters, digits and dashes such as gcra");
        }
    }

    private static String sha1Hex(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-1", e);
        }
    }
}
