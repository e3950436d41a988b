package dev.sluice.servers;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import dev.sluice.internal.redis.KeyMaterial;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import static dev.sluice.test.RateLimitAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's scenarios plus its {@code @Stateless} box office ({@code api/box-office}): session beans with
 * container-managed transactions writing through JPA to the server's default datasource, under {@code @Locked}
 * and {@code @Bounded}. For servers with an EJB container and a default datasource; each scenario opens a
 * counter of its own, so the packagings deployed side by side share the tables.
 */
public abstract class SessionBeanScenarios extends SampleScenarios {

    /** Concurrent callers of the box office's {@code @Stateless} beans. */
    private static final int CALLERS = 20;

    /**
     * Twenty concurrent sales at one counter of the {@code @Stateless} box office, each reading the counter's row,
     * incrementing it and committing (slowly) under {@code @Locked}: the container commits after Sluice's
     * interceptor returned, so only a lock kept until the commit makes all twenty count, with never two
     * transactions between lock and completion at once.
     */
    @Test
    @Order(8)
    public void concurrentSalesOfAStatelessBeanUnderALockAllCount() {
        eachApp(app -> {
            URI counter = openCounter(app);
            List<HttpResponse<String>> sales = Http.postConcurrently(URI.create(counter + "/sales"), CALLERS);
            assertThat(sales).as("%s: sales", app)
                    .allSatisfy(r -> assertThat(r.statusCode()).as(describe(r)).isEqualTo(201));
            Map<String, String> report = report(Http.get(counter));
            System.out.println(app + ": " + CALLERS + " concurrent @Stateless sales under @Locked: " + report);
            assertThat(report).as("%s: counter report after %d concurrent sales", app, CALLERS)
                    .containsEntry("sold", String.valueOf(CALLERS))
                    .containsEntry("mostSalesAtOnce", "1");
        });
    }

    /**
     * Concurrent sales of which every other one rolls back: a rollback completes the transaction too, so it must
     * release the lock (the next sale proceeds, nobody waits for the lease) and never let two in at once.
     */
    @Test
    @Order(9)
    public void aRolledBackSaleReleasesTheLockAndTheNextOneProceeds() {
        eachApp(app -> {
            URI counter = openCounter(app);
            List<CompletableFuture<HttpResponse<String>>> pending = IntStream.range(0, CALLERS)
                    .mapToObj(i -> Http.postAsync(URI.create(counter + "/sales" + (i % 2 == 0 ? "?rollback=true" : ""))))
                    .toList();
            List<HttpResponse<String>> sales = pending.stream().map(CompletableFuture::join).toList();
            assertThat(sales).as("%s: sales, half of them rolled back", app)
                    .allSatisfy(r -> assertThat(r.statusCode()).as(describe(r)).isIn(200, 201));
            HttpResponse<String> last = Http.post(URI.create(counter + "/sales?rollback=true"));
            assertThat(last.statusCode()).as(describe(last)).isEqualTo(200);
            String counterId = counter.getPath().substring(counter.getPath().lastIndexOf('/') + 1);
            assertThat(redis.admin().exists(lockKey(app, counterId)))
                    .as("%s: the lock of a counter whose last sale rolled back is released, not left to expire", app)
                    .isFalse();
            HttpResponse<String> next = Http.post(URI.create(counter + "/sales/at-once"));
            assertThat(next.statusCode()).as("%s: a sale that does not wait, right after a rollback: %s", app,
                    describe(next)).isEqualTo(201);
            Map<String, String> report = report(Http.get(counter));
            System.out.println(app + ": " + CALLERS + " concurrent @Stateless sales, every other one rolled back: "
                    + report);
            assertThat(report).as("%s: counter report", app)
                    .containsEntry("sold", String.valueOf(CALLERS / 2 + 1))
                    .containsEntry("mostSalesAtOnce", "1");
        });
    }

    /**
     * Twenty concurrent receipts under {@code @Bounded(permits = 2)} on the {@code @Stateless} box office: never
     * more than two transactions between the guarded call and their completion.
     */
    @Test
    @Order(10)
    public void aBoundedStatelessBeanNeverHasMoreUncommittedTransactionsThanPermits() {
        eachApp(app -> {
            URI counter = openCounter(app);
            List<HttpResponse<String>> receipts = Http.postConcurrently(URI.create(counter + "/receipts"), CALLERS);
            assertThat(receipts).as("%s: receipts", app)
                    .allSatisfy(r -> assertThat(r.statusCode()).as(describe(r)).isEqualTo(201));
            Map<String, String> report = report(Http.get(counter));
            System.out.println(app + ": " + CALLERS + " concurrent @Stateless receipts under @Bounded(permits = 2): "
                    + report);
            assertThat(report).as("%s: counter report", app)
                    .containsEntry("receipts", String.valueOf(CALLERS))
                    .containsEntry("mostReceiptsAtOnce", "2");
        });
    }

    /**
     * A {@code @Stateless} method under {@code @Locked(maxWait = "0s")} while another node holds the lock: the
     * {@code LockNotAcquiredException} reaches the JAX-RS resource through two session beans as itself (an
     * application exception), so Sluice's mapper answers 503 with its problem body, and the caller's transaction
     * is rolled back (the attempt it counted is gone).
     */
    @Test
    @Order(11)
    public void lockNotAcquiredInAStatelessBeanReachesTheResourceAsItselfAndRollsBack() {
        eachApp(app -> {
            URI counter = openCounter(app);
            String counterId = counter.getPath().substring(counter.getPath().lastIndexOf('/') + 1);
            String lockKey = lockKey(app, counterId);
            redis.admin().psetex(lockKey, 60_000, "another-node");
            try {
                HttpResponse<String> refused = Http.post(URI.create(counter + "/sales/at-once"));
                assertThat(refused.statusCode()).as(describe(refused)).isEqualTo(503);
                assertProblem(refused, 503);
                assertThat(refused.headers().firstValue("Retry-After")).as(describe(refused)).isPresent();
            } finally {
                redis.admin().del(lockKey);
            }
            assertThat(report(Http.get(counter))).as("%s: the refused attempt was rolled back", app)
                    .containsEntry("attempts", "0")
                    .containsEntry("sold", "0");
            HttpResponse<String> sold = Http.post(URI.create(counter + "/sales/at-once"));
            assertThat(sold.statusCode()).as(describe(sold)).isEqualTo(201);
            assertThat(report(Http.get(counter))).as("%s", app)
                    .containsEntry("attempts", "1")
                    .containsEntry("sold", "1");
        });
    }

    /** Opens a new counter of the box office and returns its URL. */
    private static URI openCounter(SampleApp app) {
        URI counter = app.uri("api/box-office/" + UUID.randomUUID());
        HttpResponse<String> opened = Http.put(counter);
        assertThat(opened.statusCode()).as(describe(opened)).isEqualTo(204);
        return counter;
    }

    /** The Redis key of the lock of a box office counter. */
    private static String lockKey(SampleApp app, String counterId) {
        return app.keyPrefix() + ":lock:{" + KeyMaterial.of("box-office:" + counterId) + "}";
    }
}
