package dev.sluice.internal.http;

import dev.sluice.KeyResolver;
import dev.sluice.RequestView;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;

import java.util.Optional;

/**
 * Derives the raw bucket key of a request for one policy's {@code sluice.limit.<policy>.key}. Built once
 * per policy at startup (a {@code bean:} resolver is looked up then, so a missing bean fails deployment);
 * applied per request.
 *
 * <p>Raw keys are request data and are never used verbatim: the engine passes them through
 * {@code KeyMaterial}, which hashes anything long or outside a safe alphabet. Keys that can fall back to
 * the client address are tagged so that a crafted value can never land in another client's bucket:
 * <ul>
 *   <li>{@code ip}: the client address after the trusted-proxy rules, e.g. {@code 192.0.2.7};</li>
 *   <li>{@code principal}: {@code user:<name>}, or {@code ip:<address>} for anonymous requests (no name, or an
 *       empty or blank one);</li>
 *   <li>{@code header:<Name>}, {@code query:<name>}, {@code path-param:<name>}: {@code h:}, {@code q:},
 *       {@code p:} + the (first) value, or {@code ip:<address>} when it is absent or blank;</li>
 *   <li>{@code path}: the path within the application in the canonical form patterns match
 *       ({@link PathMatcher#canonical}), so that {@code /login} and {@code /login/} share a bucket; {@code global}: one bucket for everyone;</li>
 *   <li>{@code bean:<name>}: whatever the {@link KeyResolver} returns; nothing exempts the request
 *       from the policy.</li>
 * </ul>
 * CDI is touched only for {@code bean:} keys, so the servlet filter runs in containers without CDI.
 *
 * <p>Immutable and thread-safe (the {@link KeyResolver} must be thread-safe too).
 */
public final class KeyResolution {

    private final KeySpec spec;
    private final KeyResolver resolver;

    private KeyResolution(KeySpec spec, KeyResolver resolver) {
        this.spec = spec;
        this.resolver = resolver;
    }

    /**
     * @param policy               the policy whose key to derive
     * @param pathParametersKnown  whether the caller can supply path parameters (JAX-RS yes, servlet no)
     * @throws SluiceConfigException for {@code path-param:} keys where path parameters are unknown, and
     *                               for {@code bean:} keys naming no CDI bean (or without CDI)
     */
    public static KeyResolution of(PolicyConfig policy, boolean pathParametersKnown) {
        KeySpec spec = policy.key();
        String configKey = "sluice.limit." + policy.name() + ".key";
        if (spec.type() == KeySpec.Type.PATH_PARAM && !pathParametersKnown) {
            throw ConfigProblems.invalid(configKey, spec.toString(),
                    "a key the servlet filter can derive (ip, principal, header:<Name>, query:<name>, path, global,"
                            + " bean:<name>): path-param:<name> only works for JAX-RS resources, so remove this"
                            + " policy's paths or change its key");
        }
        KeyResolver resolver = spec.type() == KeySpec.Type.BEAN ? lookUp(configKey, spec) : null;
        return new KeyResolution(spec, resolver);
    }

    private static KeyResolver lookUp(String configKey, KeySpec spec) {
        try {
            return CdiKeyResolvers.lookUp(configKey, spec.argument());
        } catch (LinkageError e) {
            throw ConfigProblems.invalid(configKey, spec.toString(), "needs CDI (jakarta.enterprise.inject.spi.CDI),"
                    + " which this application does not have", "a key other than bean:<name> without CDI");
        }
    }

    /** The raw key of {@code request} under this policy, or {@code null} to not limit the request. */
    public String rawKey(RequestView request) {
        return switch (spec.type()) {
            case IP -> request.clientAddress();
            case PRINCIPAL -> request.principal().filter(n -> !n.isBlank()).map(n -> "user:" + n)
                    .orElseGet(() -> anonymous(request));
            case HEADER -> tagged("h:", request.header(spec.argument()), request);
            case QUERY -> tagged("q:", request.queryParameter(spec.argument()), request);
            case PATH_PARAM -> tagged("p:", request.pathParameter(spec.argument()), request);
            case PATH -> PathMatcher.canonical(request.path());
            case GLOBAL -> "global";
            case BEAN -> resolver.resolve(request).orElse(null);
        };
    }

    private static String tagged(String tag, Optional<String> value, RequestView request) {
        return value.filter(v -> !v.isBlank()).map(v -> tag + v).orElseGet(() -> anonymous(request));
    }

    private static String anonymous(RequestView request) {
        return "ip:" + request.clientAddress();
    }

    /** The key specification, as configured. */
    public KeySpec spec() {
        return spec;
    }
}
