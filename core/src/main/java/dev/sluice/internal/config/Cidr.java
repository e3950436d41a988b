package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.net.InetAddress;
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

    /** The accepted form, for every refusal. */
    static final String FORM = "a comma-separated list of IP literals or CIDRs such as 10.0.0.0/8, 192.168.1.10 or"
            + " fd00::/8 (decimal prefix length without sign or leading zero: 1..32 for IPv4, 1..128 for IPv6)";

    /**
     * Parses a CIDR literal. Only IP literals are accepted, read by {@link IpLiteral} and never by the system
     * resolver: a host name, or a numeric-looking text the resolver would still look up or read its own way
     * ({@code 256.0.0.0}, {@code 010.0.0.0}), cannot make a range trusted.
     *
     * @param key the configuration key, for the error message
     * @throws SluiceConfigException when {@code text} is not a CIDR, is a {@code /0} range (it would let any
     *                               client choose its own key), or is written as IPv4-mapped IPv6
     */
    public static Cidr parse(String key, String text) {
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        byte[] bytes = IpLiteral.parseBare(address);
        if (bytes == null) {
            throw ConfigProblems.invalid(key, text, FORM);
        }
        int max = bytes.length * 8;
        int prefix = slash < 0 ? max : prefixLength(trimmed.substring(slash + 1), max);
        if (prefix < 0) {
            throw ConfigProblems.invalid(key, text, FORM);
        }
        if (prefix == 0) {
            throw ConfigProblems.invalid(key, text, FORM + "; a /0 range trusts every peer, so any client could"
                    + " choose its own key by sending a forwarding header");
        }
        if (IpLiteral.isIpv4Mapped(bytes)) {
            String v4 = IpLiteral.format(IpLiteral.parse(address));
            String suggestion = prefix >= 96 ? v4 + "/" + (prefix - 96) : "the IPv4 range";
            throw ConfigProblems.invalid(key, text, FORM + "; client addresses written as IPv4-mapped IPv6 are"
                    + " compared as IPv4, so write this range as " + suggestion);
        }
        return new Cidr(IpLiteral.mask(bytes, prefix), prefix, trimmed);
    }

    /** The decimal prefix length in 0..max, or -1 ({@code 08}, {@code +8}, {@code -1}, non-ASCII digits). */
    private static int prefixLength(String text, int max) {
        if (text.isEmpty() || text.length() > 3 || (text.length() > 1 && text.charAt(0) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value <= max ? value : -1;
    }

    /** Whether {@code address} lies in this network; IPv4 and IPv6 never match each other. */
    public boolean contains(InetAddress address) {
        return contains(address.getAddress());
    }

    /** The prefix length, 1..32 for IPv4 and 1..128 for IPv6. */
    public int prefixLength() {
        return prefixLength;
    }

    /** Whether this is an IPv6 network. */
    public boolean isIpv6() {
        return network.length == 16;
    }

    /** Whether {@code text} (as given to {@link #parse}) names this network's address, no host bits set. */
    boolean isNetworkOf(String text) {
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        byte[] written = IpLiteral.parseBare(slash < 0 ? trimmed : trimmed.substring(0, slash));
        return Arrays.equals(written, network);
    }

    /** Whether the 4 or 16 address bytes lie in this network; IPv4 and IPv6 never match each other. */
    public boolean contains(byte[] address) {
        return address.length == network.length && Arrays.equals(IpLiteral.mask(address, prefixLength), network);
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
