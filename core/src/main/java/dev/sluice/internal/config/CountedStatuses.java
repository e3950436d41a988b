package dev.sluice.internal.config;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

/**
 * {@code sluice.limit.<policy>.count}: which responses a policy charges, {@code all} (charged before the
 * request, the default) or a list of statuses and classes ({@code 401,403}, {@code 4xx,5xx}) charged after
 * the response. Immutable and thread-safe.
 */
public final class CountedStatuses {

    /** Every request is charged, before it runs. */
    public static final CountedStatuses ALL = new CountedStatuses(null, "all");

    static final String FORM = "all, or a comma-separated list of statuses (100 to 599) and status classes"
            + " (1xx to 5xx), such as 401,403 or 4xx,5xx";

    private final BitSet statuses;
    private final String text;

    private CountedStatuses(BitSet statuses, String text) {
        this.statuses = statuses;
        this.text = text;
    }

    /**
     * @throws dev.sluice.SluiceConfigException naming the key, the value and {@link #FORM} when an item is
     *                                          neither a status nor a class, or the list is empty
     */
    static CountedStatuses parse(String key, String value) {
        String trimmed = value.strip();
        if (trimmed.equalsIgnoreCase("all")) {
            return ALL;
        }
        BitSet set = new BitSet(600);
        List<String> items = new ArrayList<>();
        for (String item : Values.list(trimmed)) {
            String lower = item.toLowerCase(Locale.ROOT);
            if (lower.length() == 3 && lower.endsWith("xx") && lower.charAt(0) >= '1' && lower.charAt(0) <= '5') {
                int base = (lower.charAt(0) - '0') * 100;
                set.set(base, base + 100);
            } else if (lower.length() == 3 && lower.chars().allMatch(c -> c >= '0' && c <= '9')
                    && Integer.parseInt(lower) >= 100 && Integer.parseInt(lower) <= 599) {
                set.set(Integer.parseInt(lower));
            } else {
                throw ConfigProblems.invalid(key, value, "has \"" + item + "\", which is neither an HTTP status"
                        + " nor a status class", FORM);
            }
            items.add(lower);
        }
        if (items.isEmpty()) {
            throw ConfigProblems.invalid(key, value, FORM);
        }
        return new CountedStatuses(set, String.join(",", items));
    }

    /** Whether every request is charged before it runs ({@code count=all}). */
    public boolean all() {
        return statuses == null;
    }

    /** Whether a response with this status is charged; always true for {@link #ALL}. */
    public boolean counts(int status) {
        return statuses == null || (status >= 0 && statuses.get(status));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CountedStatuses c && java.util.Objects.equals(c.statuses, statuses);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(statuses);
    }

    @Override
    public String toString() {
        return text;
    }
}
