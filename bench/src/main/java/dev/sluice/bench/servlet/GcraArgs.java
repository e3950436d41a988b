package dev.sluice.bench.servlet;

import dev.sluice.internal.config.Bandwidth;

import java.time.Duration;
import java.util.List;

/**
 * {@code gcra.lua}'s {@code ARGV} as Sluice's engine sends it for one enforced policy of one bandwidth whose burst is
 * its token count (the header of {@code gcra.lua} says what each is): policy count, kind, decides, charge, cost,
 * bandwidth count, interval in the bucket's units, units per µs, capacity. The references that call the script
 * themselves (the hot-key rows' {@code jedis-evalsha} and {@code redis-benchmark}, e2e.sh's {@link EvalshaFilter})
 * send these, so that they measure the call Sluice makes. In this package, without servlet types, because e2e.sh
 * packs it with {@link EvalshaFilter} into the sample WAR.
 */
public final class GcraArgs {

    private GcraArgs() {
    }

    public static List<String> of(long tokens, Duration period) {
        Bandwidth bandwidth = new Bandwidth(tokens, period, tokens);
        return List.of("1", "bucket", "1", "if-all-admit", "1", "1", String.valueOf(bandwidth.intervalUnits()),
                String.valueOf(bandwidth.unitsPerMicro()), String.valueOf(tokens));
    }
}
