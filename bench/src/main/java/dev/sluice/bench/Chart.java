package dev.sluice.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The PNG of the main comparisons, drawn with plain Java2D (no plotting library, nothing outside the JDK):
 * eight panels of grouped bars, operations (or requests) per second with their error.
 */
final class Chart {

    private static final int WIDTH = 2500;
    private static final int HEIGHT = 950;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x7f7f7f),
            new Color(0xbcbcbc), new Color(0x9467bd)};
    /** The end-to-end panel's series that is not a library: WildFly with no rate-limit filter. */
    private static final String NO_FILTER = "no filter";
    private static final List<String> RATE_LIBRARIES = List.of(Libraries.SLUICE, Libraries.BUCKET4J, Libraries.REDISSON, Libraries.CEILING,
            Libraries.CEILING_PIPELINED);
    /** The pipelined ceiling is measured on the hot key at 32 threads only, and has its own panel. */
    private static final List<String> RATE_PANEL_LIBRARIES = RATE_LIBRARIES.subList(0, 4);
    private static final List<String> LOCK_LIBRARIES = List.of(Libraries.SLUICE, Libraries.REDISSON, Libraries.LOCK_FLOOR);
    private static final List<String> SEMAPHORE_LIBRARIES = List.of(Libraries.SLUICE, Libraries.REDISSON);

    /** One panel: bars of each library (series) in each group. */
    private record Panel(String title, List<String> groups, List<String> series, double[][] values, double[][] errors) {
    }

    private final Results results;

    Chart(Results results) {
        this.results = results;
    }

    void write(Path file, String subtitle) throws IOException {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 22));
            g.drawString("Sluice vs Bucket4j vs Redisson: operations per second on one Redis (higher is better)", 30, 38);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
            g.drawString(subtitle, 30, 62);
            legend(g);
            int top = 110;
            int w = (WIDTH - 150) / 4;
            int h = (HEIGHT - top - 40) / 2;
            draw(g, rateAt(32), 30, top, w, h);
            draw(g, rateHotByThreads(), 60 + w, top, w, h);
            draw(g, rateHotCeilings(), 90 + 2 * w, top, w, h);
            draw(g, endToEnd(), 120 + 3 * w, top, w, h);
            draw(g, locks(), 30, top + h + 30, w, h);
            draw(g, semaphores(), 60 + w, top + h + 30, w, h);
            draw(g, concurrency(), 90 + 2 * w, top + h + 30, w, h);
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private Panel rateAt(int threads) {
        List<String> groups = List.of("one hot key", "100,000 keys");
        return panel("Rate-limit decisions/s, " + threads + " threads", groups, RATE_PANEL_LIBRARIES,
                groups.stream().map(label -> results.find(Scenario.Section.RATE_LIMIT, label, threads)).toList());
    }

    private Panel rateHotByThreads() {
        List<String> groups = List.of("1 thread", "8 threads", "32 threads");
        return panel("Rate-limit decisions/s, one hot key, by threads", groups, RATE_PANEL_LIBRARIES, List.of(
                results.find(Scenario.Section.RATE_LIMIT, "one hot key", 1),
                results.find(Scenario.Section.RATE_LIMIT, "one hot key", 8),
                results.find(Scenario.Section.RATE_LIMIT, "one hot key", 32)));
    }

    /** Sluice on the hot key beside the server's two ceilings: one round trip per decision, and pipelined. */
    private Panel rateHotCeilings() {
        List<String> series = List.of(Libraries.SLUICE, Libraries.CEILING, Libraries.CEILING_PIPELINED);
        return panel("Hot key, 32 threads: Sluice and the ceilings", List.of("one hot key"), series,
                List.of(results.find(Scenario.Section.RATE_LIMIT, "one hot key", 32)));
    }

    /**
     * WildFly requests/s: without a filter, Sluice's and Bucket4j's filter from one client address, and both from many
     * (mean and standard deviation over the rounds).
     */
    private Panel endToEnd() {
        List<String> groups = List.of("one client address", "many addresses (X-Forwarded-For)");
        List<String> series = List.of(Libraries.SLUICE, Libraries.BUCKET4J, NO_FILTER);
        String[][] variants = {
                {WildFlyEndToEnd.SLUICE, WildFlyEndToEnd.BUCKET4J, WildFlyEndToEnd.WITHOUT},
                {WildFlyEndToEnd.SLUICE_MANY, WildFlyEndToEnd.BUCKET4J_MANY, null}};
        double[][] values = new double[groups.size()][series.size()];
        double[][] errors = new double[groups.size()][series.size()];
        WildFlyEndToEnd.Result e2e = results.endToEnd;
        for (int gi = 0; gi < groups.size(); gi++) {
            for (int si = 0; si < series.size(); si++) {
                String variant = variants[gi][si];
                boolean measured = variant != null && e2e != null && e2e.skipped().isEmpty() && e2e.measured(variant);
                Stats.Estimate rps = measured ? e2e.mean(variant, WildFlyEndToEnd.Run::requestsPerSecond) : null;
                values[gi][si] = rps == null ? Double.NaN : rps.value();
                // -1: no such bar in this group (WildFly without a filter is measured from one address only)
                errors[gi][si] = variant == null ? -1 : rps == null ? Double.NaN : rps.error();
            }
        }
        return new Panel("WildFly requests/s end to end (wrk)", groups, series, values, errors);
    }

    private Panel concurrency() {
        List<String> groups = List.of("64 permits, never exhausted", "4 permits");
        return panel("Concurrency-limit decisions/s, 32 threads", groups, SEMAPHORE_LIBRARIES,
                groups.stream().map(label -> results.find(Scenario.Section.CONCURRENCY, label, 32)).toList());
    }

    private Panel locks() {
        List<String> groups = List.of("key per thread", "one key");
        return panel("Lock acquire+release/s, 32 threads", groups, LOCK_LIBRARIES,
                groups.stream().map(label -> results.find(Scenario.Section.LOCK, label, 32)).toList());
    }

    private Panel semaphores() {
        List<String> groups = List.of("64 permits", "4 permits");
        return panel("Semaphore acquire+release/s, 32 threads", groups, SEMAPHORE_LIBRARIES,
                groups.stream().map(label -> results.find(Scenario.Section.SEMAPHORE, label, 32)).toList());
    }

    private Panel panel(String title, List<String> groups, List<String> series, List<Optional<Scenario>> scenarios) {
        double[][] values = new double[groups.size()][series.size()];
        double[][] errors = new double[groups.size()][series.size()];
        for (int gi = 0; gi < groups.size(); gi++) {
            for (int si = 0; si < series.size(); si++) {
                int s = si;
                Optional<Stats.Summary> summary = scenarios.get(gi).flatMap(sc -> results.summary(sc, series.get(s)));
                values[gi][si] = summary.map(x -> x.opsPerSecond().value()).orElse(Double.NaN);
                errors[gi][si] = summary.map(x -> x.opsPerSecond().error()).orElse(Double.NaN);
            }
        }
        return new Panel(title, groups, series, values, errors);
    }

    private static void legend(Graphics2D g) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
        int x = 30;
        List<String> labels = List.of("Sluice", "Bucket4j", "Redisson",
                "reference: redis-benchmark running gcra.lua (rate limits), bare SET NX PX + release script (locks)",
                "redis-benchmark -P 16 (pipelined)", "WildFly without a rate-limit filter");
        for (int i = 0; i < labels.size(); i++) {
            g.setColor(COLORS[i]);
            g.fillRect(x, 76, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(labels.get(i), x + 20, 89);
            x += 40 + g.getFontMetrics().stringWidth(labels.get(i));
        }
    }

    private static void draw(Graphics2D g, Panel p, int x, int y, int w, int h) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
        g.drawString(p.title(), x + 10, y + 20);
        int left = x + 75;
        int bottom = y + h - 35;
        int top = y + 40;
        int right = x + w - 10;
        double max = 0;
        for (int gi = 0; gi < p.groups().size(); gi++) {
            for (int si = 0; si < p.series().size(); si++) {
                double v = p.values()[gi][si] + (Double.isNaN(p.errors()[gi][si]) ? 0 : p.errors()[gi][si]);
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double step = niceStep(max <= 0 ? 1 : max * 1.12 / 5);
        double scaleMax = Math.ceil(max * 1.12 / step) * step;
        if (scaleMax <= 0) {
            scaleMax = step * 5;
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        for (double t = 0; t <= scaleMax + step / 2; t += step) {
            int ty = bottom - (int) Math.round((bottom - top) * t / scaleMax);
            g.setColor(new Color(0xE5E5E5));
            g.drawLine(left, ty, right, ty);
            g.setColor(Color.DARK_GRAY);
            String label = compact(t);
            g.drawString(label, left - 8 - fm.stringWidth(label), ty + 5);
        }
        g.setColor(Color.BLACK);
        g.drawLine(left, bottom, right, bottom);
        int groupWidth = (right - left) / p.groups().size();
        int barWidth = Math.min(70, (groupWidth - 30) / p.series().size());
        for (int gi = 0; gi < p.groups().size(); gi++) {
            int gx = left + gi * groupWidth + (groupWidth - barWidth * p.series().size()) / 2;
            for (int si = 0; si < p.series().size(); si++) {
                double v = p.values()[gi][si];
                int bx = gx + si * barWidth;
                String library = p.series().get(si);
                int colorIndex = library.equals(Libraries.LOCK_FLOOR) ? 3
                        : library.equals(NO_FILTER) ? 5 : RATE_LIBRARIES.indexOf(library);
                if (Double.isNaN(v) && p.errors()[gi][si] == -1) {
                    continue;
                }
                if (Double.isNaN(v)) {
                    g.setColor(Color.GRAY);
                    g.drawString("n/a", bx + (barWidth - fm.stringWidth("n/a")) / 2, bottom - 6);
                    continue;
                }
                int bh = (int) Math.round((bottom - top) * v / scaleMax);
                g.setColor(COLORS[colorIndex]);
                g.fillRect(bx + 3, bottom - bh, barWidth - 6, bh);
                double e = p.errors()[gi][si];
                if (!Double.isNaN(e) && e > 0) {
                    int hi = bottom - (int) Math.round((bottom - top) * (v + e) / scaleMax);
                    int lo = bottom - (int) Math.round((bottom - top) * Math.max(0, v - e) / scaleMax);
                    int cx = bx + barWidth / 2;
                    g.setColor(Color.BLACK);
                    g.setStroke(new BasicStroke(1.5f));
                    g.drawLine(cx, hi, cx, lo);
                    g.drawLine(cx - 5, hi, cx + 5, hi);
                    g.drawLine(cx - 5, lo, cx + 5, lo);
                }
                g.setColor(Color.BLACK);
                String label = compact(v);
                int labelY = Math.min(bottom - bh - 4, bottom - (int) Math.round((bottom - top) * (v + (Double.isNaN(e) ? 0 : e)) / scaleMax) - 4);
                g.drawString(label, bx + (barWidth - fm.stringWidth(label)) / 2, labelY);
            }
            g.setColor(Color.BLACK);
            String group = p.groups().get(gi);
            g.drawString(group, left + gi * groupWidth + (groupWidth - fm.stringWidth(group)) / 2, bottom + 20);
        }
    }

    private static double niceStep(double raw) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double r = raw / magnitude;
        return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * magnitude;
    }

    private static String compact(double v) {
        if (v >= 1_000_000) {
            return String.format(Locale.ROOT, "%.1fM", v / 1_000_000);
        }
        if (v >= 1_000) {
            return String.format(Locale.ROOT, v >= 10_000 ? "%.0fk" : "%.1fk", v / 1_000);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
