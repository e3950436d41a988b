package dev.sluice.bench;

import java.util.List;

/** Means, 95% confidence intervals and ratios of measurements. */
final class Stats {

    /** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom. */
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
            2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

    private Stats() {
    }

    /** A value with the half-width of its 95% confidence interval ({@code NaN} when unknown). */
    record Estimate(double value, double error) {
        double relativeError() {
            return value == 0 ? Double.NaN : error / value;
        }

        /** {@code this / other}, its relative error the root sum of squares of both relative errors. */
        Estimate over(Estimate other) {
            double ratio = value / other.value;
            double rel = Math.sqrt(square(relativeError()) + square(other.relativeError()));
            return new Estimate(ratio, ratio * rel);
        }
    }

    /** One library in one scenario over all rounds: throughput over every measured iteration, mean percentiles. */
    record Summary(Estimate opsPerSecond, double p50Micros, double p99Micros, int samples,
                   double clientCpuMicrosPerOp, double redisCpuMicrosPerOp, double admittedShare,
                   double redisCallsPerOp) {
    }

    static Summary summarize(List<Measurement> rounds) {
        int n = 0;
        double sum = 0;
        for (Measurement m : rounds) {
            for (double v : m.opsPerSecond()) {
                sum += v;
                n++;
            }
        }
        double mean = sum / n;
        double squares = 0;
        for (Measurement m : rounds) {
            for (double v : m.opsPerSecond()) {
                squares += square(v - mean);
            }
        }
        double error = n < 2 ? Double.NaN : t975(n - 1) * Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
        double p50 = rounds.stream().mapToLong(Measurement::p50Nanos).average().orElse(Double.NaN) / 1000.0;
        double p99 = rounds.stream().mapToLong(Measurement::p99Nanos).average().orElse(Double.NaN) / 1000.0;
        double client = rounds.stream().mapToDouble(Measurement::clientCpuMicrosPerOp).average().orElse(Double.NaN);
        double server = rounds.stream().mapToDouble(Measurement::redisCpuMicrosPerOp).average().orElse(Double.NaN);
        double admitted = rounds.stream().mapToDouble(Measurement::admittedShare).average().orElse(Double.NaN);
        double calls = rounds.stream().mapToDouble(Measurement::redisCallsPerOp).average().orElse(Double.NaN);
        return new Summary(new Estimate(mean, error), p50, p99, n, client, server, admitted, calls);
    }

    /** The mean of {@code values} with its 95% confidence interval ({@code NaN} for one value). */
    static Estimate mean(List<Double> values) {
        double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        int n = values.size();
        if (n < 2) {
            return new Estimate(mean, Double.NaN);
        }
        double squares = values.stream().mapToDouble(v -> square(v - mean)).sum();
        return new Estimate(mean, t975(n - 1) * Math.sqrt(squares / (n - 1)) / Math.sqrt(n));
    }

    private static double t975(int degrees) {
        return degrees <= T975.length ? T975[degrees - 1] : 1.96;
    }

    private static double square(double v) {
        return v * v;
    }
}
