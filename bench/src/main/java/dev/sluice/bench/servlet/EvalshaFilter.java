package dev.sluice.bench.servlet;

import dev.sluice.internal.redis.LuaScript;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A reference, not a peer: the round trip alone. Per request, one {@code EVALSHA} of Sluice's own {@code gcra.lua}
 * with the arguments Sluice sends for the e2e policy (1,000,000 per second), on a key named after
 * {@code getRemoteAddr()}, through a pooled Jedis client of 64 connections as Sluice's; then a 429 on refusal or
 * the chain. No configuration, path matching, key escaping, headers or failure handling. What WildFly pays for this
 * filter is what any filter that asks Redis once per request pays on the same host; what Sluice's filter pays beyond
 * it is Sluice's own.
 *
 * <p>Not part of any product: e2e.sh packs this class into a jar with a web fragment and puts it into a copy of the
 * plain-WAR sample whose Sluice filter is switched off (Sluice's core, whose script it loads, and Jedis are in that
 * WAR already). Redis: {@code sluice.redis.uri}.
 */
public class EvalshaFilter implements Filter {

    private UnifiedJedis jedis;
    private String sha;
    private List<String> args;

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        String redisUri = System.getProperty("sluice.redis.uri");
        if (redisUri == null) {
            throw new ServletException("EvalshaFilter needs -Dsluice.redis.uri=redis://host:port");
        }
        URI uri = URI.create(redisUri);
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        jedis = RedisClient.builder().hostAndPort(uri.getHost(), uri.getPort()).poolConfig(pool).build();
        sha = jedis.scriptLoad(LuaScript.bundled("gcra").source());
        args = GcraArgs.of(1_000_000, Duration.ofSeconds(1));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        List<?> reply = (List<?>) jedis.evalsha(sha, List.of("evalsha:{" + request.getRemoteAddr() + "}"), args);
        if ((Long) reply.get(0) == 1L) {
            chain.doFilter(request, response);
        } else {
            ((HttpServletResponse) response).sendError(429);
        }
    }

    @Override
    public void destroy() {
        if (jedis != null) {
            jedis.close();
        }
    }
}
