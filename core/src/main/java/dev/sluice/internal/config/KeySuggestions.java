package dev.sluice.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the known key nearest to a misspelt one, for "did you mean" hints. Stateless and thread-safe.
 */
final class KeySuggestions {

    /** Farther than this (fewer for short words), a suggestion is more likely to confuse than to help. */
    private static final int MAX_DISTANCE = 3;

    private KeySuggestions() {
    }

    /**
     * @param keys     exact keys
     * @param families prefixes such as {@code sluice.limit.}; {@code sluice.limits.api.rate} is compared
     *                 with {@code sluice.limit.api.rate}
     */
    static Optional<String> nearest(String key, List<String> keys, List<String> families) {
        List<String> candidates = new ArrayList<>(keys);
        String[] parts = key.split("\\.", 3);
        if (parts.length == 3) {
            for (String family : families) {
                candidates.add(family + parts[2]);
            }
        }
        String best = null;
        int bestDistance = Math.min(MAX_DISTANCE, Math.max(1, key.length() / 3)) + 1;
        for (String candidate : candidates) {
            int d = distance(key, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
