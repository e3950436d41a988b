package dev.sluice.sample.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A minimal OTLP/HTTP metrics receiver ({@code POST /v1/metrics}, protobuf), what an OpenTelemetry Collector
 * would be to the server: it keeps the latest point of every series it was sent (the server exports cumulative
 * sums and histograms, so the latest point is the total) and answers every other signal with 200 and nothing.
 * Listens on 127.0.0.1 from before the server starts until after the test class.
 */
final class OtlpReceiver implements BeforeAllCallback, AfterAllCallback {

    /** One series' latest point: a sum or gauge value, or a histogram's count and sum. */
    record Point(String metric, String unit, String scope, Map<String, String> resource, Map<String, String> attributes,
                 double value, long count, double sum) {
    }

    private final int port;
    private final Map<String, Point> latest = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private HttpServer server;

    OtlpReceiver(int port) {
        this.port = port;
    }

    /** On {@code -Dsluice.it.otlp.port} (the POM sets it; the server's OTLP endpoint names the same port). */
    static OtlpReceiver fromSystemProperty() {
        return new OtlpReceiver(Integer.getInteger("sluice.it.otlp.port", 4818));
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        server.createContext("/", this::handle);
        server.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.stop(0);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            byte[] answer = new byte[0];
            if (exchange.getRequestURI().getPath().endsWith("/v1/metrics")) {
                requests.incrementAndGet();
                keep(ExportMetricsServiceRequest.parseFrom(body));
                answer = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    private void keep(ExportMetricsServiceRequest request) {
        for (ResourceMetrics resourceMetrics : request.getResourceMetricsList()) {
            Map<String, String> resource = map(resourceMetrics.getResource().getAttributesList());
            for (ScopeMetrics scopeMetrics : resourceMetrics.getScopeMetricsList()) {
                String scope = scopeMetrics.getScope().getName();
                for (Metric metric : scopeMetrics.getMetricsList()) {
                    for (NumberDataPoint p : metric.hasSum() ? metric.getSum().getDataPointsList()
                            : metric.hasGauge() ? metric.getGauge().getDataPointsList() : List.<NumberDataPoint>of()) {
                        double value = p.hasAsInt() ? p.getAsInt() : p.getAsDouble();
                        put(new Point(metric.getName(), metric.getUnit(), scope, resource, map(p.getAttributesList()),
                                value, 0, 0));
                    }
                    if (metric.hasHistogram()) {
                        for (HistogramDataPoint p : metric.getHistogram().getDataPointsList()) {
                            put(new Point(metric.getName(), metric.getUnit(), scope, resource,
                                    map(p.getAttributesList()), 0, p.getCount(), p.getSum()));
                        }
                    }
                }
            }
        }
    }

    private void put(Point point) {
        latest.put(point.resource() + " " + point.metric() + " " + point.attributes(), point);
    }

    private static Map<String, String> map(List<KeyValue> attributes) {
        Map<String, String> map = new TreeMap<>();
        for (KeyValue kv : attributes) {
            map.put(kv.getKey(), kv.getValue().hasStringValue() ? kv.getValue().getStringValue()
                    : kv.getValue().toString().trim());
        }
        return map;
    }

    /** The latest point of every series of {@code metric} whose attributes include {@code attributes}. */
    List<Point> series(String metric, Map<String, String> attributes) {
        return latest.values().stream()
                .filter(p -> p.metric().equals(metric) && p.attributes().entrySet().containsAll(attributes.entrySet()))
                .sorted(java.util.Comparator.comparing(p -> p.attributes().toString()))
                .toList();
    }

    /** Every series of the scope {@code scope}, for a test's printout: one line each. */
    String dump(String scope) {
        Map<String, String> lines = new TreeMap<>();
        latest.values().stream().filter(p -> p.scope().equals(scope)).forEach(p -> lines.put(
                p.metric() + p.attributes(), p.metric() + " [" + p.unit() + "] " + p.attributes() + " = "
                        + (p.count() > 0 || p.sum() > 0 ? "count " + p.count() + ", sum " + p.sum() : (long) p.value())));
        return String.join("\n", new LinkedHashMap<>(lines).values());
    }

    /** How many metric exports arrived so far. */
    int exports() {
        return requests.get();
    }
}
