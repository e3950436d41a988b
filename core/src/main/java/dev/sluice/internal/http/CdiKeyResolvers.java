package dev.sluice.internal.http;

import dev.sluice.KeyResolver;
import dev.sluice.internal.config.ConfigProblems;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.enterprise.inject.spi.CDI;

/**
 * The only class of the http package that references CDI, loaded only for {@code bean:} keys, so that
 * the servlet filter links in containers without the CDI API. Stateless and thread-safe.
 */
final class CdiKeyResolvers {

    private CdiKeyResolvers() {
    }

    static KeyResolver lookUp(String configKey, String name) {
        String expected = "bean:<name> where <name> is the @Named name of exactly one CDI bean implementing"
                + " dev.sluice.KeyResolver";
        Instance<KeyResolver> candidates;
        try {
            candidates = CDI.current().select(KeyResolver.class, NamedLiteral.of(name));
        } catch (IllegalStateException e) {
            throw ConfigProblems.invalid(configKey, "bean:" + name, "needs a CDI container, and none is running for"
                    + " this application (" + e.getMessage() + ")", "a key other than bean:<name> without CDI");
        }
        if (candidates.isUnsatisfied()) {
            throw ConfigProblems.invalid(configKey, "bean:" + name, "names no CDI bean", expected);
        }
        if (candidates.isAmbiguous()) {
            throw ConfigProblems.invalid(configKey, "bean:" + name, "names several CDI beans", expected);
        }
        return candidates.get();
    }
}
