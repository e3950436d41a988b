package dev.sluice.internal.config;

import java.util.Locale;

/**
 * {@code sluice.forwarding-header}: the one header that names the client when the peer is a trusted proxy.
 * The operator chooses it because only the operator knows which header the proxy writes; a header the proxy
 * merely passes through is the client's own, so the other one is never read.
 */
public enum ForwardingHeader {
    /** {@code X-Forwarded-For}, appended to by nginx, HAProxy and the cloud load balancers. Default. */
    X_FORWARDED_FOR("X-Forwarded-For"),
    /** {@code Forwarded} (RFC 7239). */
    FORWARDED("Forwarded");

    private final String headerName;

    ForwardingHeader(String headerName) {
        this.headerName = headerName;
    }

    /** The HTTP header name, e.g. {@code X-Forwarded-For}. */
    public String headerName() {
        return headerName;
    }

    /** Reads {@code x-forwarded-for} or {@code forwarded}, in any case. */
    static ForwardingHeader parse(String key, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        for (ForwardingHeader h : values()) {
            if (h.headerName.toLowerCase(Locale.ROOT).equals(v)) {
                return h;
            }
        }
        throw ConfigProblems.invalid(key, value, "x-forwarded-for or forwarded (the header your trusted proxy"
                + " writes; the other one is never read)");
    }
}
