package dev.sluice.test;

import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.OperationNotSupportedException;
import javax.naming.spi.InitialContextFactory;
import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A JNDI naming context for tests, so that code looking names up with {@code new InitialContext()} finds what a
 * server would bind (the JTA registry at {@code java:comp/TransactionSynchronizationRegistry}). {@link #install}
 * makes it the JVM's initial context through {@code java.naming.factory.initial}; {@link #uninstall} undoes it.
 * Only {@code lookup} and {@code close} are supported. Thread-safe.
 */
public final class JndiRegistry {

    private static final Map<String, Object> BOUND = new ConcurrentHashMap<>();

    private JndiRegistry() {
    }

    /** Binds {@code names} and makes this the initial context of every {@code new InitialContext()}. */
    public static void install(Map<String, Object> names) {
        BOUND.clear();
        BOUND.putAll(names);
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, Factory.class.getName());
    }

    public static void uninstall() {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
        BOUND.clear();
    }

    /** Named by {@code java.naming.factory.initial}; instantiated by JNDI. */
    public static final class Factory implements InitialContextFactory {
        @Override
        public Context getInitialContext(Hashtable<?, ?> environment) {
            return (Context) Proxy.newProxyInstance(JndiRegistry.class.getClassLoader(), new Class<?>[] {Context.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "lookup" -> {
                            Object found = BOUND.get(String.valueOf(args[0]));
                            if (found == null) {
                                throw new NameNotFoundException(args[0] + " is not bound in this test");
                            }
                            yield found;
                        }
                        case "close" -> null;
                        case "toString" -> "test naming context";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new OperationNotSupportedException(method.getName());
                    });
        }
    }
}
