package dev.sluice.bench;

/**
 * One library's result in one scenario and round.
 *
 * @param opsPerSecond throughput of each measured iteration
 * @param p50Nanos     median latency of one call over the measured iterations
 * @param p99Nanos     99th percentile latency
 * @param clientCpuMicrosPerOp the client's CPU time per operation ({@code NaN} when not measured)
 * @param redisCpuMicrosPerOp  redis-server's CPU time per operation
 * @param admittedShare admitted decisions over all decisions, where decisions may be refused ({@code NaN} elsewhere)
 * @param redisCallsPerOp scripts Redis ran per operation ({@code INFO commandstats}; {@code NaN} when not counted)
 */
record Measurement(String library, int round, double[] opsPerSecond, long p50Nanos, long p99Nanos,
                   double clientCpuMicrosPerOp, double redisCpuMicrosPerOp, double admittedShare,
                   double redisCallsPerOp) {

    /** A measurement of operations that always succeed, their Redis calls not counted. */
    Measurement(String library, int round, double[] opsPerSecond, long p50Nanos, long p99Nanos,
                double clientCpuMicrosPerOp, double redisCpuMicrosPerOp) {
        this(library, round, opsPerSecond, p50Nanos, p99Nanos, clientCpuMicrosPerOp, redisCpuMicrosPerOp, Double.NaN,
                Double.NaN);
    }
}
