package dev.sluice.internal.tx;

import java.lang.System.Logger.Level;
import java.util.function.Function;

/**
 * Checks that the JTA API is visible to Sluice before the class that names it is loaded (a server without JTA,
 * such as Tomcat, has none of its classes). Stateless.
 */
final class JtaPresence {

    /** Renamed to {@code javax.transaction...} in the javax build, like every other {@code jakarta} name. */
    static final String REGISTRY_CLASS = "jakarta.transaction.TransactionSynchronizationRegistry";

    private JtaPresence() {
    }

    static boolean apiPresent() {
        try {
            Class.forName(REGISTRY_CLASS, false, JtaPresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** {@code registry} as {@link Transactions}, or {@link Transactions#NONE} when it is not a JTA registry. */
    static Transactions over(Object registry) {
        // Through a function so that JtaTransactions is resolved only here, after apiPresent().
        Function<Object, Transactions> wrap = JtaTransactions::over;
        Transactions found = wrap.apply(registry);
        System.getLogger("dev.sluice.lock").log(Level.DEBUG, "Sluice: " + found);
        return found;
    }
}
