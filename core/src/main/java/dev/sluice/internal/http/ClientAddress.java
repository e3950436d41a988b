package dev.sluice.internal.http;

import dev.sluice.internal.config.Cidr;

import java.net.InetAddress;
import java.util.List;

/**
 * Decides which address a request comes from, for {@code ip} keys and the anonymous fallback of
 * {@code principal} keys.
 *
 * <p>Rules ({@code sluice.trusted-proxies}):
 * <ul>
 *   <li>When the direct peer is not a trusted proxy, it is the client; forwarding headers are ignored,
 *       since anyone can send them.</li>
 *   <li>When it is, the hop chain is read from {@code Forwarded} (RFC 7239) if that header carries at
 *       least one {@code for=} and parses, otherwise from {@code X-Forwarded-For}, and walked from the
 *       right (nearest hop) to the left: the first address that is not a trusted proxy is the client.
 *       Everything left of it was written by the client itself and is never believed.</li>
 *   <li>A hop that a trusted proxy could not name ({@code unknown}, an obfuscated {@code _id}, a
 *       host name, garbage, an element without {@code for=}) stops the walk: the client is then the
 *       trusted proxy that wrote it. Entries further left would be client-controlled.</li>
 *   <li>When every hop is a trusted proxy, the left-most one is the client.</li>
 *   <li>A malformed header is ignored, never an error; the work is bounded for huge headers.</li>
 * </ul>
 * Addresses are returned in canonical form (IPv4 dotted quad, RFC 5952 IPv6 without zone id, IPv4-mapped
 * IPv6 as IPv4), so equal addresses always share a bucket. Immutable and thread-safe.
 */
public final class ClientAddress {

    private final List<Cidr> trustedProxies;

    /** @param trustedProxies CIDRs whose forwarding headers are believed; empty = believe none */
    public ClientAddress(List<Cidr> trustedProxies) {
        this.trustedProxies = List.copyOf(trustedProxies);
    }

    /**
     * @param peer          the direct peer's address, as from {@code ServletRequest.getRemoteAddr()}
     * @param forwarded     the {@code Forwarded} header lines in order of appearance (may be empty)
     * @param xForwardedFor the {@code X-Forwarded-For} header lines in order of appearance (may be empty)
     * @return the client address in canonical form; the peer as given when it is not an IP literal
     */
    public String resolve(String peer, List<String> forwarded, List<String> xForwardedFor) {
        byte[] current = IpLiteral.parse(peer);
        if (current == null) {
            return peer == null ? "" : peer;
        }
        if (trustedProxies.isEmpty() || !isTrusted(current)) {
            return IpLiteral.format(current);
        }
        List<String> hops = ForwardingHeaders.forwardedFor(forwarded);
        if (hops.isEmpty()) {
            hops = ForwardingHeaders.xForwardedFor(xForwardedFor);
        }
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
        return IpLiteral.format(current);
    }

    /** Whether {@code address} (any textual form {@link #resolve} accepts) is a trusted proxy. */
    public boolean isTrustedProxy(String address) {
        byte[] bytes = IpLiteral.parse(address);
        return bytes != null && isTrusted(bytes);
    }

    private boolean isTrusted(byte[] address) {
        InetAddress inet = IpLiteral.toInetAddress(address);
        for (Cidr cidr : trustedProxies) {
            if (cidr.contains(inet)) {
                return true;
            }
        }
        return false;
    }
}
