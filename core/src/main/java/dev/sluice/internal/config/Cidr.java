package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An IPv4 or IPv6 network in CIDR notation ({@code 10.0.0.0/8}, {@code ::1/128}; a bare address means
 * a single host). Immutable and thread-safe.
 */
public final class Cidr {

    private final byte[] network;
    private final int prefixLength;
    private final String text;

    private Cidr(byte[] network, int prefixLength, String text) {
        this.network = network;
        this.prefixLength = prefixLength;
        this.text = text;
    }

    /**
     * Parses a CIDR literal. Only IP literals are accepted (no host names, so no DNS lookup).
     *
     * @param key the configuration key, for the error message
     * @throws SluiceConfigException when {@code text} is not a CIDR
     */
    public static Cidr parse(String key, String text) {
        String expected = "a comma-separated list of CIDRs such as 10.0.0.0/8, 192.168.1.10 or ::1/128";
        String trimmed = text.trim();
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        if (!isIpLiteral(address)) {
            throw new SluiceConfigException(key, text, expected);
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(address).getAddress();
        } catch (UnknownHostException e) {
            throw new SluiceConfigException(key, text, expected);
        }
        int max = bytes.length * 8;
        int prefix = max;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(trimmed.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new SluiceConfigException(key, text, expected);
            }
            if (prefix < 0 || prefix > max) {
                throw new SluiceConfigException(key, text, expected + " (prefix length 0.." + max + ")");
            }
        }
        return new Cidr(mask(bytes, prefix), prefix, trimmed);
    }

    private static boolean isIpLiteral(String s) {
        if (s.isEmpty()) {
            return false;
        }
        if (s.indexOf(':') >= 0) {
            return s.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        }
        return s.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.') && s.split("\\.", -1).length == 4;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int bits = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] = (byte) (out[i] & (0xFF << (8 - bits)));
        }
        return out;
    }

    /** Whether {@code address} lies in this network; IPv4 and IPv6 never match each other. */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == network.length && Arrays.equals(mask(bytes, prefixLength), network);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefixLength == prefixLength && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefixLength;
    }

    @Override
    public String toString() {
        return text;
    }
}
