package dev.sluice.internal.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Turns request-derived text (an IP address, a header value, a principal name) into the part of a Redis
 * key that identifies a bucket, so that request data can never change the structure of a key nor make
 * keys large.
 *
 * <p>Values of at most {@value #MAX_VERBATIM} characters drawn from {@code [A-Za-z0-9._:@/-]} are kept as
 * they are, which keeps keys readable in {@code redis-cli} (IPv4 and IPv6 addresses, user names, API key
 * ids). Anything else (longer, braces that would alter the Cluster hash tag, spaces, CR/LF, NUL,
 * non-ASCII) becomes {@code #} followed by 22 base64url characters of its SHA-256 (132 bits). Since
 * {@code #} is outside the verbatim alphabet, a crafted verbatim value can never equal the hashed form of
 * another. Stateless and thread-safe.
 */
public final class KeyMaterial {

    /** Longest value kept verbatim. */
    public static final int MAX_VERBATIM = 64;

    private KeyMaterial() {
    }

    /** The key-safe form of {@code raw}. */
    public static String of(String raw) {
        if (raw.length() <= MAX_VERBATIM && !raw.isEmpty() && isVerbatim(raw)) {
            return raw;
        }
        return "#" + hash(raw);
    }

    /**
     * The UTF-8 bytes of {@code raw}, unless it holds an unpaired surrogate: {@code getBytes(UTF_8)} turns each
     * into {@code '?'}, which would put {@code "\uD800"}, {@code "\uDC00"} and {@code "?"} in one bucket. Such
     * strings are hashed as the byte {@code 0xFF} followed by their UTF-16 code units instead; {@code 0xFF} never
     * occurs in UTF-8, so they cannot collide with a well-formed value, whose hash stays as it was.
     */
    private static byte[] bytes(String raw) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < raw.length() && Character.isLowSurrogate(raw.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // Code unit by code unit: getBytes(UTF_16BE) would replace every unpaired surrogate with U+FFFD,
                // putting "\uD800" and "\uDC00" in one bucket again.
                byte[] marked = new byte[1 + 2 * raw.length()];
                marked[0] = (byte) 0xFF;
                for (int j = 0; j < raw.length(); j++) {
                    char unit = raw.charAt(j);
                    marked[1 + 2 * j] = (byte) (unit >>> 8);
                    marked[2 + 2 * j] = (byte) unit;
                }
                return marked;
            }
        }
        return raw.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean isVerbatim(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == ':' || c == '@' || c == '/' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static String hash(String raw) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes(raw));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JRE", e);
        }
    }
}
