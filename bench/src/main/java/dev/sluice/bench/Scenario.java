package dev.sluice.bench;

import java.util.List;
import java.util.Map;

/**
 * One comparison: the same benchmark with the same parameters and thread count, once per library.
 *
 * @param section   what is measured
 * @param variant   the benchmark's own parameters (besides {@code library}), e.g. {@code keys=hot}
 * @param label     how the report names the variant
 * @param threads   concurrent callers
 * @param libraries Sluice first; the others are what its ratios are taken against
 */
record Scenario(Section section, Map<String, String> variant, String label, int threads, List<String> libraries) {

    enum Section {
        RATE_LIMIT("Rate-limit decisions", RateLimitBenchmark.class, "decide"),
        LOCK("Lock acquire+release", LockBenchmark.class, "lockUnlock"),
        SEMAPHORE("Semaphore acquire+release", SemaphoreBenchmark.class, "acquireRelease"),
        CONCURRENCY("Concurrency-limit decisions (acquire + release)", ConcurrencyLimitBenchmark.class, "decide");

        final String title;
        final Class<?> benchmark;
        final String method;

        Section(String title, Class<?> benchmark, String method) {
            this.title = title;
            this.benchmark = benchmark;
            this.method = method;
        }
    }

    String id() {
        return section.name().toLowerCase() + "/" + label + "/" + threads;
    }
}
