package dev.sluice.internal.http;

import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.internal.config.IpLiteral;
import dev.sluice.internal.config.SluiceConfig;

import java.util.List;
import java.util.function.Supplier;

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
 *       host name, garbage, an element without {@code for=}, a malformed element, one beyond 8 KiB from the
 *       header's end or beyond 32 hops) stops the walk: no client address is established. The request is then
 *       keyed by the trusted proxy that wrote that hop ({@link #resolve}), so that all such clients of one
 *       proxy share its bucket, but it is never exempt by that proxy's address: {@link #resolveAddress} is
 *       empty, and no CIDR matches it. Entries further left would be client-controlled.</li>
 *   <li>Headers are read element by element from their end ({@link ForwardingHeaders}), so whatever a client
 *       wrote before its proxy's element (an unterminated quote, padding past the length limit) leaves that
 *       element readable.</li>
 *   <li>When every hop read is a trusted proxy and the header was read to its start, the left-most of them is
 *       the client. A trusted proxy that sends no forwarding header (or an empty one) is its own client.</li>
 * </ul>
 * Addresses are returned in canonical form (IPv4 dotted quad, RFC 5952 IPv6 without zone id, IPv4-mapped
 * IPv6 as IPv4, an IPv4-embedded address of a NAT64 prefix ({@code sluice.nat64-prefixes}, always
 * {@code 64:ff9b::/96}) as the IPv4 address it embeds, for keys, exemptions and trust alike), so equal addresses
 * always share a bucket. An IPv6 client is returned as its network of
 * {@code sluice.ipv6-prefix} bits ({@code 2001:db8:1:2::/64}): one subscriber holds a whole /64 and could
 * otherwise take a fresh bucket with every address of it. Immutable and thread-safe.
 */
public final class ClientAddress {

    private final List<Cidr> trustedProxies;
    private final ForwardingHeader header;
    private final int ipv6Prefix;
    private final List<Cidr> nat64Prefixes;

    /**
     * With the well-known NAT64 prefix only.
     *
     * @param trustedProxies CIDRs whose forwarding header is believed; empty = believe none
     * @param header         the one header read from a trusted proxy
     * @param ipv6Prefix     prefix length (32..128) by which IPv6 clients are keyed
     */
    public ClientAddress(List<Cidr> trustedProxies, ForwardingHeader header, int ipv6Prefix) {
        this(trustedProxies, header, ipv6Prefix, List.of(SluiceConfig.WELL_KNOWN_NAT64_PREFIX));
    }

    /**
     * @param trustedProxies CIDRs whose forwarding header is believed; empty = believe none
     * @param header         the one header read from a trusted proxy
     * @param ipv6Prefix     prefix length (32..128) by which IPv6 clients are keyed
     * @param nat64Prefixes  IPv6 /96 prefixes whose addresses are read as the IPv4 address they embed
     */
    public ClientAddress(List<Cidr> trustedProxies, ForwardingHeader header, int ipv6Prefix, List<Cidr> nat64Prefixes) {
        if (ipv6Prefix < 0 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("IPv6 prefix length " + ipv6Prefix + " is not in 0..128");
        }
        for (Cidr prefix : nat64Prefixes) {
            if (!prefix.isIpv6() || prefix.prefixLength() != 96) {
                throw new IllegalArgumentException("NAT64 prefix " + prefix + " is not an IPv6 /96");
            }
        }
        this.trustedProxies = List.copyOf(trustedProxies);
        this.header = header;
        this.ipv6Prefix = ipv6Prefix;
        this.nat64Prefixes = List.copyOf(nat64Prefixes);
    }

    /** The rules of one application's configuration. */
    public static ClientAddress of(SluiceConfig config) {
        return new ClientAddress(config.trustedProxies(), config.forwardingHeader(), config.ipv6Prefix(),
                config.nat64Prefixes());
    }

    /** The name of the one forwarding header {@link #resolve} reads, e.g. {@code X-Forwarded-For}. */
    public String headerName() {
        return header.headerName();
    }

    /**
     * @param peer        the direct peer's address, as from {@code ServletRequest.getRemoteAddr()}
     * @param headerLines the lines of the {@link #headerName()} header in order of appearance (may be empty)
     * @return the client in canonical form (an IPv6 client as its network); the trusted proxy that wrote the hop
     *         when no client address is established; the peer as given when it is not an IP literal
     */
    public String resolve(String peer, List<String> headerLines) {
        return resolve(peer, () -> headerLines);
    }

    /**
     * {@link #resolve(String, List)} with the header's lines read only when they are needed: when the peer is a
     * trusted proxy, so that a request from anyone else costs no header lookup.
     */
    public String resolve(String peer, Supplier<List<String>> headerLines) {
        if (trustedProxies.isEmpty() && IpLiteral.isCanonicalIpv4(peer)) {
            return peer; // what the rules below give it, without parsing and writing it again
        }
        Client client = client(peer, headerLines);
        return client == null ? unparsed(peer) : key(client.address);
    }

    /**
     * Like {@link #resolve}, but an IPv6 client is given as its full address, never as its network: what
     * {@code exempt} CIDRs are compared with, so that exempting one address does not exempt its neighbours.
     *
     * @param peer        the direct peer's address, as from {@code ServletRequest.getRemoteAddr()}
     * @param headerLines the lines of the {@link #headerName()} header in order of appearance (may be empty)
     * @return the client's address in canonical form; empty when a trusted proxy's header establishes none
     *         (never the proxy's own address, which an exemption could match); the peer as given when it is not
     *         an IP literal
     */
    public String resolveAddress(String peer, List<String> headerLines) {
        return resolveAddress(peer, () -> headerLines);
    }

    /** {@link #resolveAddress(String, List)} with the header's lines read only when the peer is a trusted proxy. */
    public String resolveAddress(String peer, Supplier<List<String>> headerLines) {
        if (trustedProxies.isEmpty() && IpLiteral.isCanonicalIpv4(peer)) {
            return peer;
        }
        Client client = client(peer, headerLines);
        if (client == null) {
            return unparsed(peer);
        }
        return client.established ? IpLiteral.format(client.address) : "";
    }

    private static String unparsed(String peer) {
        return peer == null ? "" : peer;
    }

    /**
     * @param address     the client's address, or the trusted proxy's when none is established
     * @param established whether {@code address} is the client's
     */
    private record Client(byte[] address, boolean established) {
    }

    /** The client, or null when the peer is not an IP literal. */
    private Client client(String peer, Supplier<List<String>> headerLines) {
        byte[] current = parse(peer);
        if (current == null) {
            return null;
        }
        if (trustedProxies.isEmpty() || !isTrusted(current)) {
            return new Client(current, true);
        }
        List<String> hops = header == ForwardingHeader.FORWARDED
                ? ForwardingHeaders.forwardedFor(headerLines.get())
                : ForwardingHeaders.xForwardedFor(headerLines.get());
        for (String hop : hops) {
            byte[] address = parse(hop);
            if (address == null) {
                return new Client(current, false);
            }
            current = address;
            if (!isTrusted(address)) {
                break;
            }
        }
        return new Client(current, true);
    }

    /**
     * The address bytes of {@code text}, an IPv4-embedded IPv6 address of a NAT64 prefix as the IPv4 client it
     * stands for: through NAT64 every IPv4 client would otherwise fall in the prefix's one /64 bucket, and no
     * IPv4 exemption or trusted proxy would ever match it. Null when {@code text} is not an IP literal.
     */
    private byte[] parse(String text) {
        byte[] address = IpLiteral.parse(text);
        if (address != null && address.length == 16) {
            for (Cidr prefix : nat64Prefixes) {
                if (prefix.contains(address)) {
                    return new byte[] {address[12], address[13], address[14], address[15]};
                }
            }
        }
        return address;
    }

    private String key(byte[] address) {
        if (address.length == 4 || ipv6Prefix == 128) {
            return IpLiteral.format(address);
        }
        return IpLiteral.format(IpLiteral.mask(address, ipv6Prefix)) + "/" + ipv6Prefix;
    }

    /** Whether {@code address} (any textual form {@link #resolve} accepts) is a trusted proxy. */
    public boolean isTrustedProxy(String address) {
        byte[] bytes = parse(address);
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
