package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A parsed {@code redis://[user:password@]host[:port][/db]} or {@code rediss://} URI. The port defaults to
 * 6379. Credentials are percent-decoded. Immutable; {@link #toString()} shows no credentials.
 *
 * @param tls      {@code rediss://}
 * @param user     ACL user, empty when not given
 * @param password password, empty when not given; never printed
 * @param address  host and port
 * @param database database index
 */
record RedisUri(boolean tls, Optional<String> user, Optional<String> password, RedisAddress address,
                int database) {

    static final String EXPECTED = "redis://[user:password@]host:port[/db] or rediss://... for TLS,"
            + " such as redis://localhost:6379/0";

    static final int DEFAULT_PORT = 6379;

    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?]");

    /**
     * @throws SluiceConfigException naming the key and the value with any credentials masked
     */
    static RedisUri parse(String key, String text) {
        String shown = redact(text);
        int sep = text.indexOf("://");
        String scheme = sep < 0 ? "" : text.substring(0, sep);
        if (!scheme.equalsIgnoreCase("redis") && !scheme.equalsIgnoreCase("rediss")) {
            throw ConfigProblems.invalid(key, shown, EXPECTED);
        }
        String rest = text.substring(sep + 3);
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw ConfigProblems.invalid(key, shown, EXPECTED + " (no query or fragment)");
        }
        int at = rest.lastIndexOf('@');
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                throw ConfigProblems.invalid(key, shown, "credentials written as user:password@ or"
                        + " :password@ in " + EXPECTED);
            }
            user = ConfigSources.clean(decode(key, shown, userInfo.substring(0, colon)));
            password = Optional.of(decode(key, shown, userInfo.substring(colon + 1))).filter(p -> !p.isEmpty());
            rest = rest.substring(at + 1);
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        int database = 0;
        if (!path.isEmpty()) {
            if (!path.chars().allMatch(c -> c >= '0' && c <= '9') || path.length() > 9) {
                throw ConfigProblems.invalid(key, shown, EXPECTED + " (the database is a number such as /0)");
            }
            database = Integer.parseInt(path);
        }
        return new RedisUri(scheme.equalsIgnoreCase("rediss"), user, password,
                hostAndPort(key, shown, authority, true, EXPECTED), database);
    }

    /**
     * Splits {@code host:port}, validating both. An IPv6 literal is written in brackets ({@code [::1]:6379}).
     *
     * @param portOptional whether a missing port means {@link #DEFAULT_PORT}
     */
    static RedisAddress hostAndPort(String key, String shown, String authority, boolean portOptional, String expected) {
        String host;
        String port;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            host = close < 0 ? authority : authority.substring(0, close + 1);
            String after = close < 0 ? "" : authority.substring(close + 1);
            if (!after.isEmpty() && !after.startsWith(":")) {
                throw ConfigProblems.invalid(key, shown, expected);
            }
            port = after.isEmpty() ? null : after.substring(1);
            if (!IPV6.matcher(host).matches()) {
                throw ConfigProblems.invalid(key, shown, expected);
            }
        } else {
            int colon = authority.lastIndexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            port = colon < 0 ? null : authority.substring(colon + 1);
            if (!HOST_NAME.matcher(host).matches()) {
                throw ConfigProblems.invalid(key, shown, expected);
            }
        }
        if (port == null) {
            if (!portOptional) {
                throw ConfigProblems.invalid(key, shown, expected + " (the port is required)");
            }
            return address(host, DEFAULT_PORT);
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw ConfigProblems.invalid(key, shown, expected + " (the port is a number from 1 to 65535)");
        }
        return address(host, Integer.parseInt(port));
    }

    /** Without the brackets of an IPv6 literal, which are URI syntax, not part of the address. */
    private static RedisAddress address(String host, int port) {
        return new RedisAddress(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port);
    }

    /** This URI with TLS on or off ({@code sluice.redis.tls} decides over the scheme). */
    RedisUri withTls(boolean on) {
        return on == tls ? this : new RedisUri(on, user, password, address, database);
    }

    /** The URI without credentials, with the port always written: {@code redis://host:6379/0}. */
    String withoutCredentials() {
        return (tls ? "rediss" : "redis") + "://" + address + "/" + database;
    }

    /** {@code text} with everything between {@code ://} and the last {@code @} masked, for messages. */
    static String redact(String text) {
        int at = text.lastIndexOf('@');
        if (at < 0) {
            return text;
        }
        int sep = text.indexOf("://");
        int start = sep >= 0 && sep < at ? sep + 3 : 0;
        return text.substring(0, start) + "****" + text.substring(at);
    }

    private static String decode(String key, String shown, String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                int hi = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 1), 16) : -1;
                int lo = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw ConfigProblems.invalid(key, shown, "credentials percent-encoded as %XX in " + EXPECTED);
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                int codePoint = encoded.codePointAt(i);
                out.writeBytes(new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(codePoint) - 1;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return withoutCredentials() + (user.isPresent() || password.isPresent() ? " (with credentials)" : "");
    }
}
