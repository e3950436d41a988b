package dev.sluice.internal.limit;

import dev.sluice.internal.config.IpLiteral;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.redis.KeyMaterial;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The form in which a raw bucket key may be written to a log line, an exception message or JMX. Values a
 * client or an application chose (a header, a query or path parameter, what a {@code KeyResolver} or a
 * programmatic caller passed) are often secrets, API keys above all, so they appear only as a tag:
 * {@code h:#1a2b3c4d}, the key's tag followed by {@code #} and 8 hex digits of an HMAC-SHA256 under a key drawn
 * at random when the class loads. One value has one tag in one JVM's lines until it restarts, so lines can be
 * told apart and matched with each other, and a short key cannot be found again by hashing guesses offline.
 * The Redis key form ({@link KeyMaterial}) is deliberately different: it keeps short plain values readable.
 *
 * <p>Readable (through {@link KeyMaterial}, so never a line break or a brace): client addresses and networks
 * ({@code 192.0.2.7}, {@code ip:2001:db8::/64}), principal keys of {@code key=principal} ({@code user:alice}),
 * paths of {@code key=path}, and {@code global}. Stateless apart from the HMAC key; thread-safe.
 */
public final class LoggedKeys {

    private static final byte[] HMAC_KEY = randomKey();

    private LoggedKeys() {
    }

    /**
     * @param type   the key type of the policy the key was derived under
     * @param rawKey the raw bucket key ({@code h:<value>}, {@code user:<name>}, an address, ...)
     * @return what a log line, exception message or MBean may show of it
     */
    public static String of(KeySpec.Type type, String rawKey) {
        if (isAddress(rawKey) || rawKey.startsWith("ip:") && isAddress(rawKey.substring(3))
                || type == KeySpec.Type.PRINCIPAL && rawKey.startsWith("user:")
                || type == KeySpec.Type.PATH && rawKey.startsWith("/")
                || type == KeySpec.Type.GLOBAL && rawKey.equals("global")) {
            return KeyMaterial.of(rawKey);
        }
        String tag = "";
        if (type == KeySpec.Type.HEADER || type == KeySpec.Type.QUERY || type == KeySpec.Type.PATH_PARAM) {
            int colon = rawKey.indexOf(':');
            tag = colon == 1 ? rawKey.substring(0, 2) : "";
        }
        return tag + "#" + hmac(rawKey);
    }

    /** An address or a network as {@code ClientAddress} writes it ({@code 2001:db8:1:2::/64}). */
    private static boolean isAddress(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        return !address.isEmpty() && address.indexOf('[') < 0 && IpLiteral.parse(address) != null
                && (slash < 0 || text.substring(slash + 1).chars().allMatch(Character::isDigit));
    }

    private static byte[] randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }

    private static String hmac(String rawKey) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(HMAC_KEY, "HmacSHA256"));
            byte[] digest = mac.doFinal(rawKey.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JRE", e);
        }
    }
}
