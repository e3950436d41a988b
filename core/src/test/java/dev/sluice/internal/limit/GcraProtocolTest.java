package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.PermitRenewal;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The wire format of {@code gcra.lua} and of the permit scripts: the arguments written, the replies read. */
class GcraProtocolTest {

    private static final LuaScript GCRA = LuaScript.of("gcra", "return 1", "file:/etc/sluice/gcra.lua");
    private static final BucketRequest RATE = new BucketRequest("rl", 2, List.of(BucketRequest.Limit.ofMicros(1000, 5),
            new BucketRequest.Limit(10_000_000, 3, 3)), ChargeMode.SHADOW);
    private static final BucketRequest PERMIT = BucketRequest.permits("cc", ChargeMode.CONCURRENCY,
            new BucketRequest.Permit(4, 30_000, "node:1"));

    @Test
    void eachPolicySaysItsKindWhetherItDecidesAndWhenItIsCharged() {
        assertThat(GcraProtocol.args(List.of(RATE, PERMIT))).containsExactly("2",
                "bucket", "0", "if-it-admits", "2", "2", "1000", "1", "5", "10000000", "3", "3",
                "permits", "1", "if-all-admit", "4", "30000", "node:1");
        assertThat(GcraProtocol.keys(List.of(RATE, PERMIT))).containsExactly("rl", "rl:1", "cc");
    }

    @Test
    void everyModeTravelsAsWhatItMeans() {
        assertThat(List.of(ChargeMode.values()).stream().map(m -> (m.decides() ? "decides " : "watches ")
                + m.charge().wire()).toList()).containsExactly("decides if-all-admit", "watches if-it-admits",
                "decides never", "watches never", "watches always", "decides if-all-admit", "watches if-all-admit",
                "watches refund");
    }

    @Test
    void aReplyOfTwoRequestsIsReadFiveIntegersAtATime() {
        List<BucketOutcome> outcomes = GcraProtocol.outcomes(List.of(1L, 4L, 1L, 0L, 250_000L,
                0L, 0L, 0L, 1_000_000L, 2_000_000L), List.of(RATE, PERMIT), GCRA);
        assertThat(outcomes).containsExactly(new BucketOutcome(true, 4, 1, 0, 250_000),
                new BucketOutcome(false, 0, 0, 1_000_000, 2_000_000));
    }

    @Test
    void aReplyOfAnotherShapeIsRefusedNamingTheScript() {
        for (Object reply : List.of(List.of(1L, 4L, 0L, 0L, 0L), List.of(1L, 4L, 0L, "0", 0L, 1L, 4L, 0L, 0L, 0L), "OK",
                List.of(2L, 4L, 0L, 0L, 0L, 1L, 4L, 0L, 0L, 0L), List.of(1L, 4L, 2L, 0L, 0L, 1L, 4L, 0L, 0L, 0L),
                List.of(1L, 4L, 0L, 0L, 0L, 1L, 4L, 1L, 0L, 0L))) {
            assertThatThrownBy(() -> GcraProtocol.outcomes(reply, List.of(RATE, PERMIT), GCRA)).as("%s", reply)
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("gcra (file:/etc/sluice/gcra.lua)").hasMessageContaining("shape");
        }
    }

    private static final BucketRequest BUDGET = BucketRequest.reserving("hot", 1, List.of(BucketRequest.Limit.ofMicros(
            1000, 50)), ChargeMode.ENFORCE, 9);

    @Test
    void aBudgetSendsItsReserveAfterItsCostAndAnExactPolicyTheShapeItAlwaysHad() {
        assertThat(GcraProtocol.args(List.of(BUDGET, RATE))).containsExactly("2",
                "budget", "1", "if-all-admit", "1", "9", "1", "1000", "1", "50",
                "bucket", "0", "if-it-admits", "2", "2", "1000", "1", "5", "10000000", "3", "3");
        assertThat(GcraProtocol.keys(List.of(BUDGET, RATE))).containsExactly("hot", "rl", "rl:1");
        BucketRequest refund = new BucketRequest("hot", 4, List.of(BucketRequest.Limit.ofMicros(1000, 50)),
                ChargeMode.REFUND);
        assertThat(GcraProtocol.args(List.of(refund))).containsExactly("1", "bucket", "0", "refund", "4", "1", "1000",
                "1", "50");
    }

    @Test
    void aBudgetsReplyHasASixthIntegerTheTokensReserved() {
        List<BucketOutcome> outcomes = GcraProtocol.outcomes(List.of(1L, 40L, 0L, 0L, 10_000L, 9L,
                1L, 4L, 1L, 0L, 250_000L), List.of(BUDGET, RATE), GCRA);
        assertThat(outcomes).containsExactly(new BucketOutcome(true, 40, 0, 0, 10_000, 9),
                new BucketOutcome(true, 4, 1, 0, 250_000, 0));
        assertThat(GcraProtocol.outcomes(List.of(1L, 40L, 0L, 0L, 10_000L, 0L), List.of(BUDGET), GCRA).get(0).reserved())
                .isZero();
    }

    @Test
    void aReservationBeyondTheReserveNegativeOrWithARefusalIsRefusedNamingTheScript() {
        for (List<Long> reply : List.of(List.of(1L, 40L, 0L, 0L, 10_000L, 10L), List.of(1L, 40L, 0L, 0L, 10_000L, -1L),
                List.of(0L, 0L, 0L, 5_000L, 10_000L, 1L), List.of(1L, 40L, 0L, 0L, 10_000L))) {
            assertThatThrownBy(() -> GcraProtocol.outcomes(reply, List.of(BUDGET), GCRA)).as("%s", reply)
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("gcra (file:/etc/sluice/gcra.lua)").hasMessageContaining("shape")
                    .hasMessageContaining(reply.size() == 6 ? "reserved " + reply.get(5) + " of 9" : "");
        }
        for (List<Long> reply : List.of(List.of(2L, 4L, 0L, 0L, 0L))) {
            assertThatThrownBy(() -> GcraProtocol.outcomes(reply, List.of(RATE), GCRA))
                    .hasMessageNotContaining("reserved");
        }
        assertThat(GcraProtocol.outcomes(List.of(0L, 0L, 0L, 5_000L, 10_000L, 0L), List.of(BUDGET), GCRA).get(0).allowed())
                .as("a refusal that reserved nothing").isFalse();
    }

    @Test
    void onlyARatePolicyMayReserveAndNeverANegativeAmount() {
        List<BucketRequest.Limit> limits = List.of(BucketRequest.Limit.ofMicros(1000, 50));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> BucketRequest.reserving("hot", 1, limits, ChargeMode.REFUND, 1));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> BucketRequest.reserving("hot", 1, limits, ChargeMode.ENFORCE, -1));
        assertThat(BucketRequest.reserving("hot", 1, limits, ChargeMode.REFUND, 0).reserve()).isZero();
        assertThat(BucketRequest.reserving("hot", 1, limits, ChargeMode.CHARGE, 3).reserve()).isEqualTo(3);
    }

    @Test
    void thePermitScriptsRepliesAreCheckedToo() {
        LuaScript release = LuaScript.of("concurrency-release", "return 0", "file:/etc/sluice/rel.lua");
        assertThat(PermitProtocol.returned(2L, 2, release)).isEqualTo(2);
        for (Object reply : new Object[] {3L, -1L, "1", null}) {
            assertThatThrownBy(() -> PermitProtocol.returned(reply, 2, release)).as("%s", reply)
                    .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("file:/etc/sluice/rel.lua");
        }
        LuaScript renew = LuaScript.of("semaphore-extend", "return 1", "file:/etc/sluice/ext.lua");
        assertThat(PermitRenewal.renewed(1L, renew)).isTrue();
        assertThat(PermitRenewal.renewed(0L, renew)).isFalse();
        assertThatThrownBy(() -> PermitRenewal.renewed(2L, renew)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("file:/etc/sluice/ext.lua");
    }
}
