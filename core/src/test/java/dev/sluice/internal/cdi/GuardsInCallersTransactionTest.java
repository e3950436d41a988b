package dev.sluice.internal.cdi;

import dev.sluice.internal.tx.Transactions;
import dev.sluice.test.JndiRegistry;
import dev.sluice.test.Jta;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionManager;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Locked} and {@code @Bounded} methods called inside the caller's transaction (an EJB's container-managed
 * one, a caller's {@code @Transactional}) through a real CDI container (Weld) and a real transaction manager
 * (Narayana), found as a server binds it: in JNDI at {@code java:comp/TransactionSynchronizationRegistry}.
 */
@EnableWeld
class GuardsInCallersTransactionTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Sales.class)
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of()))))
            .build();

    @Inject
    Sales sales;

    final TransactionManager tm = Jta.narayana().manager();

    @BeforeAll
    static void bindTheRegistry() {
        JndiRegistry.install(Map.of(Transactions.REGISTRY_JNDI_NAME, Jta.narayana().registry()));
    }

    @AfterAll
    static void unbind() {
        JndiRegistry.uninstall();
    }

    @Test
    void twentyCallersEachInTheirOwnTransactionRecordTwentySales() throws Exception {
        int before = Sales.ROW.committed();
        inTransactions(20, 1, () -> {
            sales.sell("ticket");
            return null;
        });
        assertThat(Sales.ROW.committed() - before).as("sales recorded by 20 callers").isEqualTo(20);
    }

    @Test
    void aBoundedMethodNeverHasMoreUncommittedCallersThanPermits() throws Exception {
        inTransactions(8, 3, () -> {
            sales.export();
            return null;
        });
        assertThat(Sales.MOST_UNCOMMITTED.get()).as("callers between permit and commit at once").isLessThanOrEqualTo(2);
    }

    /** {@code callers} threads at once, each calling {@code body} {@code times} times in a transaction of its own. */
    private void inTransactions(int callers, int times, Callable<Void> body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int n = 0; n < times; n++) {
                    tm.begin();
                    body.call();
                    tm.commit();
                }
                return null;
            }));
        }
        go.countDown();
        try {
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
