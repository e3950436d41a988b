package dev.sluice.bench.servlet;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import io.github.bucket4j.redis.jedis.cas.JedisBasedProxyManager;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The peer of Sluice's servlet filter in {@code bench/e2e.sh}: a per-client-address rate limit written the way
 * Bucket4j's documentation writes one, over its Jedis compare-and-swap proxy manager. One bucket per
 * {@code getRemoteAddr()} (behind a proxy, WildFly's {@code proxy-address-forwarding} makes that the forwarded
 * address), {@code tryConsumeAndReturnRemaining(1)} per request, the remaining tokens in a header on admission and
 * 429 with the wait on refusal.
 *
 * <p>Not part of any product: e2e.sh packs this class into a jar with a web fragment and puts it, with Bucket4j's
 * jars, into a copy of the plain-WAR sample whose Sluice filter is switched off. Configuration is by system
 * property: {@code bench.bucket4j.redis.uri} (else {@code sluice.redis.uri}) and {@code bench.bucket4j.rate}
 * (tokens per second, default 1,000,000, a limit the benchmark never reaches). The pool holds 64 connections, as
 * Sluice's does.
 */
public class Bucket4jRateLimitFilter implements Filter {

    private UnifiedJedis jedis;
    private JedisBasedProxyManager<byte[]> buckets;
    private BucketConfiguration configuration;

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        String redisUri = System.getProperty("bench.bucket4j.redis.uri", System.getProperty("sluice.redis.uri"));
        if (redisUri == null) {
            throw new ServletException("Bucket4jRateLimitFilter needs -Dbench.bucket4j.redis.uri=redis://host:port");
        }
        long rate = Long.parseLong(System.getProperty("bench.bucket4j.rate", "1000000"));
        URI uri = URI.create(redisUri);
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        jedis = RedisClient.builder().hostAndPort(uri.getHost(), uri.getPort()).poolConfig(pool).build();
        buckets = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
        configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(rate).refillGreedy(rate, Duration.ofSeconds(1)))
                .build();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest httpRequest = (HttpServletRequest) request;
        HttpServletResponse httpResponse = (HttpServletResponse) response;
        byte[] key = ("bucket4j:ip:" + httpRequest.getRemoteAddr()).getBytes(StandardCharsets.UTF_8);
        Bucket bucket = buckets.builder().build(key, () -> configuration);
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            httpResponse.setHeader("X-Rate-Limit-Remaining", Long.toString(probe.getRemainingTokens()));
            chain.doFilter(request, response);
        } else {
            long waitSeconds = TimeUnit.NANOSECONDS.toSeconds(probe.getNanosToWaitForRefill()) + 1;
            httpResponse.setStatus(429);
            httpResponse.setHeader("X-Rate-Limit-Retry-After-Seconds", Long.toString(waitSeconds));
            httpResponse.setContentType("text/plain");
            httpResponse.getWriter().append("Too many requests");
        }
    }

    @Override
    public void destroy() {
        if (jedis != null) {
            jedis.close();
        }
    }
}
