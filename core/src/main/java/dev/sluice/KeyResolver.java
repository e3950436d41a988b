package dev.sluice;

import java.util.Optional;

/**
 * Computes the rate-limit key of a request for policies configured with
 * {@code sluice.limit.<policy>.key=bean:<name>}, where {@code <name>} is the CDI name ({@code @Named}) of
 * an application-scoped bean implementing this interface.
 *
 * <p>Implementations must be thread-safe. The returned value is never used verbatim in a Redis key:
 * values longer than 64 characters or with characters outside {@code [A-Za-z0-9._:@/-]} are replaced by
 * their SHA-256 digest.
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @param request the request being decided
     * @return the key, or empty to not limit this request under the policy
     */
    Optional<String> resolve(RequestView request);
}
