package dev.sluice;

/**
 * Computes the rate-limit key of a request for policies configured with
 * {@code sluice.limit.<policy>.key=bean:<name>}, where {@code <name>} is the CDI name ({@code @Named}) of
 * an application-scoped bean implementing this interface.
 *
 * <p>Implementations must be thread-safe. The returned value is never used verbatim in a Redis key:
 * long values or values with characters outside {@code [A-Za-z0-9._:@-]} are hashed.
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @return the key, or {@code null} to not limit this request under the policy
     */
    String resolve(RequestView request);
}
