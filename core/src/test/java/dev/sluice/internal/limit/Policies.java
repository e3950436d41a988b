package dev.sluice.internal.limit;

import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Builds policies for engine tests without going through configuration parsing. */
final class Policies {

    private Policies() {
    }

    /** {@code tokens/period} pairs; the first bandwidth's capacity is {@code burst}. */
    static PolicyConfig policy(String name, long burst, Object... tokensThenPeriod) {
        List<Bandwidth> bandwidths = new ArrayList<>();
        for (int i = 0; i < tokensThenPeriod.length; i += 2) {
            long tokens = ((Number) tokensThenPeriod[i]).longValue();
            Duration period = (Duration) tokensThenPeriod[i + 1];
            bandwidths.add(new Bandwidth(tokens, period, i == 0 ? burst : tokens));
        }
        return new PolicyConfig(name, bandwidths, KeySpec.IP, List.of(), Set.of(), 1, true);
    }

    static PolicyConfig policy(String name, long tokens, Duration period) {
        return policy(name, tokens, tokens, period);
    }
}
