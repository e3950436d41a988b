package dev.sluice.internal.http;

import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.internal.config.IpLiteral;
import dev.sluice.internal.config.SluiceConfig;

import java.util.List;

/**
 * Decides which client a request comes from, for {@code ip} keys and the anonymous fallback of the other
 * keys.
 *
 * <p>Rules ({@code sluice.trusted-proxies}, {@code sluice.forwarding-header}):
 * <ul>
 *   <li>When the direct peer is not a trusted proxy, it is the client; forwarding headers are ignored,
 *       since anyone can send them.</li>
 *   <li>When it is, the hop chain is read from the one configured header ({@code X-Forwarded-For} or
 *       {@code Forwarded}), never from the other: a proxy passes a header it does not write through
 *       unchanged, so that header is the client's own. The chain is walked from the right (nearest hop) to
 *       the left: the first address that is not a trusted proxy is the client. Everything left of it was
 *       written by the client itself and is never believed.</li>
 *   <li>A hop that a trusted proxy could not name ({@code unknown}, an obfuscated {@code _id}, a
 *       host name, garbage, an element without {@code for=}) stops the walk: the client is then the
 *       trusted proxy that wrote it. Entries further left would be client-controlled.</li>
 *   <li>When every hop read is a trusted proxy, the left-most of them is the client. At most
 *       32 hops are read.</li>
 *   <li>A {@code Forwarded} header that is malformed or longer than
 *       8 KiB cannot be split into hops reliably (an unterminated
 *       quote swallows what the proxy appended), so the client is the peer: the right-most address that
 *       is known. Never an error, and never an address taken from the other header.</li>
 * </ul>
 * Addresses are returned in canonical form (IPv4 dotted quad, RFC 5952 IPv6 without zone id, IPv4-mapped
 * IPv6 as IPv4), so equal addresses always share a bucket. An IPv6 client is returned as its network of
 * {@code sluice.ipv6-prefix} bits ({@code 2001:db8:1:2::/64}): one subscriber holds a whole /64 and could
 * otherwise take a fresh bucket with every address of it. Immutable and thread-safe.
 */
public final class ClientAddress {

    private final List<Cidr> trustedProxies;
    private final ForwardingHeader header;
    private final int ipv6Prefix;

    /**
     * @param trustedProxies CIDRs whose forwarding header is believed; empty = believe none
     * @param header         the one header read from a trusted proxy
     * @param ipv6Prefix     prefix length (32..128) by which IPv6 clients are keyed
     */
    public ClientAddress(List<Cidr> trustedProxies, ForwardingHeader header, int ipv6Prefix) {
        if (ipv6Prefix < 0 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("IPv6 prefix length " + ipv6Prefix + " is not in 0..128");
        }
        this.trustedProxies = List.copyOf(trustedProxies);
        this.header = header;
        this.ipv6Prefix = ipv6Prefix;
    }

    /** The rules of one application's configuration. */
    public static ClientAddress of(SluiceConfig config) {
        return new ClientAddress(config.trustedProxies(), config.forwardingHeader(), config.ipv6Prefix());
    }

    /** The name of the one forwarding header {@link #resolve} reads, e.g. {@code X-Forwarded-For}. */
    public String headerName() {
        return header.headerName();
    }

    /**
     * @param peer        the direct peer's address, as from {@code ServletRequest.getRemoteAddr()}
     * @param headerLines the lines of the {@link #headerName()} header in order of appearance (may be empty)
     * @return the client in canonical form (an IPv6 client as its network); the peer as given when it is
     *         not an IP literal
     */
    public String resolve(String peer, List<String> headerLines) {
        byte[] client = client(peer, headerLines);
        return client == null ? unparsed(peer) : key(client);
    }

    /**
     * Like {@link #resolve}, but an IPv6 client is given as its full address, never as its network: what
     * {@code exempt} CIDRs are compared with, so that exempting one address does not exempt its neighbours.
     *
     * @param peer        the direct peer's address, as from {@code ServletRequest.getRemoteAddr()}
     * @param headerLines the lines of the {@link #headerName()} header in order of appearance (may be empty)
     * @return the client's address in canonical form; the peer as given when it is not an IP literal
     */
    public String resolveAddress(String peer, List<String> headerLines) {
        byte[] client = client(peer, headerLines);
        return client == null ? unparsed(peer) : IpLiteral.format(client);
    }

    private static String unparsed(String peer) {
        return peer == null ? "" : peer;
    }

    /** The client's address bytes, or null when the peer is not an IP literal. */
    private byte[] client(String peer, List<String> headerLines) {
        byte[] current = IpLiteral.parse(peer);
        if (current == null) {
            return null;
        }
        if (!trustedProxies.isEmpty() && isTrusted(current)) {
            List<String> hops = header == ForwardingHeader.FORWARDED
                    ? ForwardingHeaders.forwardedFor(headerLines)
                    : ForwardingHeaders.xForwardedFor(headerLines);
            for (String hop : hops) {
                byte[] address = IpLiteral.parse(hop);
                if (address == null) {
                    break;
                }
                current = address;
                if (!isTrusted(address)) {
                    break;
                }
            }
        }
        return current;
    }

    private String key(byte[] address) {
        if (address.length == 4 || ipv6Prefix == 128) {
            return IpLiteral.format(address);
        }
        return IpLiteral.format(IpLiteral.mask(address, ipv6Prefix)) + "/" + ipv6Prefix;
    }

    /** Whether {@code address} (any textual form {@link #resolve} accepts) is a trusted proxy. */
    public boolean isTrustedProxy(String address) {
        byte[] bytes = IpLiteral.parse(address);
        return bytes != null && isTrusted(bytes);
    }

    private boolean isTrusted(byte[] address) {
        for (Cidr cidr : trustedProxies) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
