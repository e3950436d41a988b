package dev.sluice.internal.tx;

import dev.sluice.test.JndiRegistry;
import dev.sluice.test.Jta;
import jakarta.transaction.TransactionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where Sluice finds the server's transactions: the JTA registry bound in JNDI, used only when it is there; no
 * JNDI entry, something else bound there, or no JTA classes at all leave releases as they are without a
 * transaction, and never load the class that names the JTA API.
 */
class TransactionsLookupTest {

    @AfterEach
    void unbind() {
        JndiRegistry.uninstall();
    }

    @Test
    void theRegistryBoundInJndiIsUsed() throws Exception {
        JndiRegistry.install(Map.of(Transactions.REGISTRY_JNDI_NAME, Jta.narayana().registry()));
        Transactions found = Transactions.lookup();

        assertThat(found).isInstanceOf(JtaTransactions.class);
        assertThat(found.current()).as("no transaction on this thread").isNull();
        Jta.narayana().manager().begin();
        try {
            assertThat(found.current()).isNotNull();
        } finally {
            Jta.narayana().manager().rollback();
        }
    }

    @Test
    void withoutANamingContextOrWithAnythingElseBoundThereAreNoTransactions() {
        assertThat(Transactions.lookup()).as("no JNDI provider (Java SE)").isSameAs(Transactions.NONE);

        JndiRegistry.install(Map.of());
        assertThat(Transactions.lookup()).as("nothing bound (Tomcat)").isSameAs(Transactions.NONE);

        JndiRegistry.install(Map.of(Transactions.REGISTRY_JNDI_NAME, "not a registry"));
        assertThat(Transactions.lookup()).isSameAs(Transactions.NONE);
    }

    @Test
    void aRegistryMissedAtStartIsFoundByTheFirstReleaseOnAThreadThatHasItAndKept() throws Exception {
        AtomicLong now = new AtomicLong();
        AtomicInteger lookups = new AtomicInteger();
        AtomicReference<Transactions> bound = new AtomicReference<>(Transactions.NONE);
        // Built on a thread without the application's naming context (an application's own thread at startup).
        Transactions server = new ServerTransactions(() -> {
            lookups.incrementAndGet();
            return bound.get();
        }, now::get);
        bound.set(JtaTransactions.over(Jta.narayana().registry())); // a request thread, which has it
        TransactionManager tm = Jta.narayana().manager();
        tm.begin();
        try {
            assertThat(server.current()).as("the first release in a transaction, a moment after startup").isNotNull();
            now.addAndGet(ServerTransactions.RETRY_NANOS * 5);
            assertThat(server.current()).isNotNull();
        } finally {
            tm.rollback();
        }
        assertThat(lookups).as("looked up at start, once more at the first release, then kept").hasValue(2);
    }

    @Test
    void whereNoRegistryIsEverFoundTheLookupsThinOutToOneAMinute() {
        AtomicLong now = new AtomicLong();
        AtomicInteger lookups = new AtomicInteger();
        Transactions server = new ServerTransactions(() -> {
            lookups.incrementAndGet();
            return Transactions.NONE;
        }, now::get);
        for (int i = 0; i < ServerTransactions.EAGER_LOOKUPS * 3; i++) {
            assertThat(server.current()).isNull();
        }
        assertThat(lookups).as("every release looks again until so many found nothing")
                .hasValue(ServerTransactions.EAGER_LOOKUPS);
        now.addAndGet(ServerTransactions.RETRY_NANOS - 1);
        assertThat(server.current()).isNull();
        assertThat(lookups).hasValue(ServerTransactions.EAGER_LOOKUPS);
        now.addAndGet(1);
        assertThat(server.current()).isNull();
        assertThat(lookups).as("then once a minute").hasValue(ServerTransactions.EAGER_LOOKUPS + 1);
    }

    @Test
    void withoutTheJtaApiTheLookupNeitherFailsNorLoadsTheClassThatNamesIt() throws Exception {
        JndiRegistry.install(Map.of(Transactions.REGISTRY_JNDI_NAME, Jta.narayana().registry()));
        WithoutJta loader = new WithoutJta();
        Class<?> transactions = loader.loadClass(Transactions.class.getName());

        assertThat(transactions.getMethod("lookup").invoke(null)).isSameAs(transactions.getField("NONE").get(null));
        assertThat(transactions.getMethod("ofServer").invoke(null)).isSameAs(transactions.getField("NONE").get(null));
        assertThat(loader.defined(JtaTransactions.class.getName())).isFalse();
    }

    /** A server without JTA: no {@code jakarta.transaction} class; Sluice's own classes are defined here anew. */
    private static final class WithoutJta extends ClassLoader {
        WithoutJta() {
            super(TransactionsLookupTest.class.getClassLoader());
        }

        boolean defined(String name) {
            return findLoadedClass(name) != null;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (name.startsWith("jakarta.transaction.")) {
                    throw new ClassNotFoundException(name + " is hidden from this test");
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = name.startsWith("dev.sluice.internal.tx.") ? defineHere(name) : getParent().loadClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        private Class<?> defineHere(String name) throws ClassNotFoundException {
            try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new ClassNotFoundException(name);
                }
                byte[] bytes = in.readAllBytes();
                return defineClass(name, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}
