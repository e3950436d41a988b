package dev.sluice.internal.lock;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Random owner tokens for locks and ids for permits: 128 bits from {@link SecureRandom}, as 32 hex digits,
 * so that no two holders anywhere ever share one and a stale holder can never delete a new owner's lock.
 * Thread-safe.
 */
final class Owners {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Owners() {
    }

    static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
