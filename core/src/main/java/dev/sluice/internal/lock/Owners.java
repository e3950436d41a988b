package dev.sluice.internal.lock;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens for locks and ids for permits: 128 bits as 32 hex digits, so that no two holders anywhere
 * ever share one and a stale holder can never delete a new owner's lock. The first 64 bits are drawn once
 * per JVM from {@link SecureRandom}; the last 64 are a per-JVM sequence number passed through a bijection
 * keyed with more random bits, so they never repeat within the JVM and do not reveal the next token.
 * Drawing from {@code SecureRandom} on every acquisition cost more than the rest of the client's work on
 * the lock. Thread-safe.
 */
final class Owners {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final long PROCESS;
    private static final long[] ADD = new long[3];
    private static final long[] MULTIPLY = new long[3];
    private static final AtomicLong SEQUENCE;

    static {
        SecureRandom random = new SecureRandom();
        PROCESS = random.nextLong();
        for (int i = 0; i < ADD.length; i++) {
            ADD[i] = random.nextLong();
            MULTIPLY[i] = random.nextLong() | 1;
        }
        SEQUENCE = new AtomicLong(random.nextLong());
    }

    private Owners() {
    }

    static String newToken() {
        char[] digits = new char[32];
        hex(PROCESS, digits, 0);
        hex(scramble(SEQUENCE.getAndIncrement()), digits, 16);
        return new String(digits);
    }

    /** Adding a constant, an xor-shift and multiplying by an odd number are each one-to-one on 64 bits. */
    static long scramble(long n) {
        long x = n;
        for (int i = 0; i < ADD.length; i++) {
            x += ADD[i];
            x ^= x >>> 29;
            x *= MULTIPLY[i];
        }
        return x ^ (x >>> 32);
    }

    private static void hex(long value, char[] into, int at) {
        for (int i = 15; i >= 0; i--) {
            into[at + i] = HEX[(int) (value & 0xf)];
            value >>>= 4;
        }
    }
}
