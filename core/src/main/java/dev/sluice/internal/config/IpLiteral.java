package dev.sluice.internal.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP address literals as they appear in {@code Forwarded}, {@code X-Forwarded-For} and
 * {@code getRemoteAddr()}: parsed by hand so that no input can ever trigger a DNS lookup, and printed
 * in one canonical form so that two spellings of one address share a rate-limit bucket.
 *
 * <p>Accepted: dotted-quad IPv4 (no leading zeros, which some parsers read as octal), IPv4 with a port
 * ({@code 192.0.2.1:8080}), IPv6 with or without brackets, with a zone id ({@code fe80::1%eth0},
 * {@code [fe80::1%25eth0]}) which is dropped, and with a port after the brackets. IPv4-mapped IPv6
 * addresses ({@code ::ffff:192.0.2.1}) are read as the IPv4 address. {@link #parseBare} is the strict form
 * configuration accepts ({@link Cidr}). Lives beside {@link Cidr} so that configuration and request handling
 * share one parser. Stateless and thread-safe.
 */
public final class IpLiteral {

    /** No literal, however decorated, is longer; anything longer is rejected before parsing. */
    static final int MAX_LENGTH = 100;

    private IpLiteral() {
    }

    /**
     * The 4 or 16 address bytes of {@code text}, or {@code null} when it is not an IP literal (host
     * names, {@code unknown}, obfuscated identifiers, garbage).
     */
    public static byte[] parse(String text) {
        if (text == null) {
            return null;
        }
        String s = text.strip();
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return null;
        }
        if (s.charAt(0) == '[') {
            int close = s.indexOf(']');
            if (close < 0 || !isPortSuffix(s, close + 1)) {
                return null;
            }
            return unmap(parseIpv6(stripZone(s.substring(1, close), true)));
        }
        int colon = s.indexOf(':');
        if (colon < 0) {
            return parseIpv4(s);
        }
        if (s.indexOf(':', colon + 1) < 0) {
            // exactly one colon: IPv4 with a port
            return isPortSuffix(s, colon) ? parseIpv4(s.substring(0, colon)) : null;
        }
        return unmap(parseIpv6(stripZone(s, false)));
    }

    /**
     * The 4 or 16 bytes of a bare literal as written in configuration: a dotted quad without leading zeros,
     * or IPv6 without brackets, port or zone id; {@code null} otherwise. IPv4-mapped IPv6 is returned as
     * its 16 bytes, so that the caller can tell it was written that way.
     */
    static byte[] parseBare(String text) {
        if (text.isEmpty() || text.length() > MAX_LENGTH) {
            return null;
        }
        return text.indexOf(':') < 0 ? parseIpv4(text) : parseIpv6(text);
    }

    /** Whether 16 bytes are an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}). */
    static boolean isIpv4Mapped(byte[] address) {
        return address.length == 16 && unmap(address).length == 4;
    }

    /** The first {@code prefix} bits of {@code address}, the rest zero. */
    public static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int bits = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] = (byte) (out[i] & (0xFF << (8 - bits)));
        }
        return out;
    }

    /** {@code InetAddress} of parsed bytes, without any lookup. */
    public static InetAddress toInetAddress(byte[] address) {
        try {
            return InetAddress.getByAddress(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("address of " + address.length + " bytes", e);
        }
    }

    /**
     * Whether {@code text} is an IPv4 address exactly as {@link #format} writes it (four decimal numbers of at most
     * 255 without leading zeros, nothing else), so that {@code format(parse(text))} is {@code text} itself: a
     * container's {@code getRemoteAddr()} is, and then need not be parsed and written again. Allocates nothing.
     */
    public static boolean isCanonicalIpv4(String text) {
        if (text == null || text.length() < 7 || text.length() > 15) {
            return false;
        }
        int parts = 0;
        int i = 0;
        while (i < text.length()) {
            int start = i;
            int value = 0;
            while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9' && i - start < 3) {
                value = value * 10 + (text.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || value > 255 || (digits > 1 && text.charAt(start) == '0')) {
                return false;
            }
            parts++;
            if (i == text.length()) {
                break;
            }
            if (text.charAt(i) != '.' || parts == 4) {
                return false;
            }
            i++;
            if (i == text.length()) {
                return false;
            }
        }
        return parts == 4;
    }

    /** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
    public static String format(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xFF) + "." + (address[1] & 0xFF) + "." + (address[2] & 0xFF) + "." + (address[3] & 0xFF);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xFF) << 8) | (address[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8;) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /** Nothing, or {@code :port} with a decimal or obfuscated ({@code _abc}) port, from {@code from} on. */
    private static boolean isPortSuffix(String s, int from) {
        if (from == s.length()) {
            return true;
        }
        if (s.charAt(from) != ':' || from + 1 == s.length()) {
            return false;
        }
        String port = s.substring(from + 1);
        if (port.charAt(0) == '_') {
            return port.chars().skip(1).allMatch(c -> isAlnum(c) || c == '.' || c == '_' || c == '-');
        }
        return port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9') && Integer.parseInt(port) <= 65535;
    }

    /**
     * Drops a zone id: it names an interface of the sender, not a different client. Inside brackets
     * RFC 6874 writes the {@code %} as {@code %25}.
     */
    private static String stripZone(String s, boolean bracketed) {
        int percent = s.indexOf('%');
        if (percent < 0) {
            return s;
        }
        String zone = s.substring(percent + 1);
        if (bracketed && zone.startsWith("25")) {
            zone = zone.substring(2);
        }
        boolean valid = !zone.isEmpty()
                && zone.chars().allMatch(c -> isAlnum(c) || c == '.' || c == '_' || c == '~' || c == '-');
        return valid ? s.substring(0, percent) : "";
    }

    static byte[] parseIpv4(String s) {
        byte[] out = new byte[4];
        int part = 0;
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i < s.length() && s.charAt(i) != '.') {
                continue;
            }
            if (part == 4) {
                return null;
            }
            int value = decimalOctet(s, start, i);
            if (value < 0) {
                return null;
            }
            out[part++] = (byte) value;
            start = i + 1;
        }
        return part == 4 ? out : null;
    }

    private static int decimalOctet(String s, int from, int to) {
        int length = to - from;
        if (length < 1 || length > 3 || (length > 1 && s.charAt(from) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value <= 255 ? value : -1;
    }

    private static byte[] parseIpv6(String s) {
        if (s.length() < 2) {
            return null;
        }
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        byte[] out = new byte[16];
        if (gap < 0) {
            return fillGroups(s, out, 0, 16) == 16 ? out : null;
        }
        String head = s.substring(0, gap);
        String tail = s.substring(gap + 2);
        int headBytes = head.isEmpty() ? 0 : fillGroups(head, out, 0, 14);
        if (headBytes < 0) {
            return null;
        }
        byte[] tailOut = new byte[16];
        int tailBytes = tail.isEmpty() ? 0 : fillGroups(tail, tailOut, 0, 14 - headBytes);
        if (tailBytes < 0 || headBytes + tailBytes > 14) {
            return null;
        }
        System.arraycopy(tailOut, 0, out, 16 - tailBytes, tailBytes);
        return out;
    }

    /**
     * Writes colon-separated hex groups (the last may be a dotted quad) into {@code out} from
     * {@code offset}; returns the bytes written, or -1 when malformed or longer than {@code max}.
     */
    private static int fillGroups(String s, byte[] out, int offset, int max) {
        String[] groups = s.split(":", -1);
        int written = 0;
        for (int i = 0; i < groups.length; i++) {
            String group = groups[i];
            if (i == groups.length - 1 && group.indexOf('.') >= 0) {
                byte[] v4 = parseIpv4(group);
                if (v4 == null || written + 4 > max) {
                    return -1;
                }
                System.arraycopy(v4, 0, out, offset + written, 4);
                return written + 4;
            }
            if (group.isEmpty() || group.length() > 4 || written + 2 > max) {
                return -1;
            }
            int value = 0;
            for (int k = 0; k < group.length(); k++) {
                int digit = Character.digit(group.charAt(k), 16);
                if (digit < 0 || group.charAt(k) > 'f') {
                    return -1;
                }
                value = value * 16 + digit;
            }
            out[offset + written] = (byte) (value >> 8);
            out[offset + written + 1] = (byte) value;
            written += 2;
        }
        return written;
    }

    /** {@code ::ffff:a.b.c.d} is the IPv4 client {@code a.b.c.d} seen through a dual-stack socket. */
    private static byte[] unmap(byte[] v6) {
        if (v6 == null) {
            return null;
        }
        for (int i = 0; i < 10; i++) {
            if (v6[i] != 0) {
                return v6;
            }
        }
        if (v6[10] != (byte) 0xFF || v6[11] != (byte) 0xFF) {
            return v6;
        }
        return new byte[] {v6[12], v6[13], v6[14], v6[15]};
    }

    private static boolean isAlnum(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
