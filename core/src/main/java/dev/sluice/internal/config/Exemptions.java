package dev.sluice.internal.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code sluice.limit.<policy>.exempt}: the clients a policy neither charges nor limits, by network
 * (CIDRs, compared with the client address as resolved through {@code sluice.trusted-proxies}), by
 * authenticated principal ({@code principal:<name>}) or by role ({@code role:<role>}). Immutable.
 *
 * @param networks   client networks
 * @param principals principal names, compared exactly
 * @param roles      role names, asked of the container ({@code isUserInRole})
 */
public record Exemptions(List<Cidr> networks, Set<String> principals, Set<String> roles) {

    /** No exemption (the default). */
    public static final Exemptions NONE = new Exemptions(List.of(), Set.of(), Set.of());

    static final String FORM = "a comma-separated list of CIDRs or IP literals (10.0.0.0/8, 2001:db8::/32,"
            + " 192.0.2.7), principal:<name> and role:<role>";

    public Exemptions {
        networks = List.copyOf(networks);
        principals = Set.copyOf(principals);
        roles = Set.copyOf(roles);
    }

    /** Whether nothing is exempt. */
    public boolean isEmpty() {
        return networks.isEmpty() && principals.isEmpty() && roles.isEmpty();
    }

    /**
     * @throws dev.sluice.SluiceConfigException naming the key, the value and the accepted form when an item is
     *                                          not a CIDR, or a principal or role name is empty
     */
    static Exemptions parse(String key, String value) {
        List<Cidr> networks = new ArrayList<>();
        Set<String> principals = new LinkedHashSet<>();
        Set<String> roles = new LinkedHashSet<>();
        List<String> items = Values.list(value);
        for (String item : items) {
            if (item.startsWith("principal:")) {
                principals.add(name(key, value, item, "principal:".length()));
            } else if (item.startsWith("role:")) {
                roles.add(name(key, value, item, "role:".length()));
            } else {
                try {
                    networks.add(Cidr.parse(key, item));
                } catch (dev.sluice.SluiceConfigException e) {
                    throw ConfigProblems.invalid(key, value, "has \"" + item + "\", which is not a CIDR, an IP"
                            + " literal (no /0), principal:<name> or role:<role>", FORM);
                }
            }
        }
        if (items.isEmpty()) {
            throw ConfigProblems.invalid(key, value, FORM);
        }
        return new Exemptions(networks, principals, roles);
    }

    private static String name(String key, String value, String item, int from) {
        String name = item.substring(from).strip();
        if (name.isEmpty()) {
            throw ConfigProblems.invalid(key, value, "has \"" + item + "\" without a name", FORM);
        }
        return name;
    }
}
