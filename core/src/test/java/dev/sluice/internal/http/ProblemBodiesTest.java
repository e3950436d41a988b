package dev.sluice.internal.http;

import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.SluiceConfigException;
import dev.sluice.SluiceException;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.test.Json;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The problem bodies of locks and permits, and the range of the IPv6 prefix by which clients are keyed. */
class ProblemBodiesTest {

    @Test
    void aBusyResourceTellsTheWaitInSecondsSingularOrPlural() {
        Map<String, Object> one = Json.parseObject(ProblemDetails.busy(1).toJson());
        assertThat(one).containsEntry("status", 503L).containsEntry("retryAfter", 1L)
                .containsEntry("detail", "A resource this request needs is busy; retry after 1 second.");
        assertThat(ProblemDetails.busy(2).detail()).endsWith("retry after 2 seconds.");
        assertThat(Json.parseObject(ProblemDetails.busy(0).toJson())).containsEntry("retryAfter", 0L);
    }

    @Test
    void aLostResourceTellsNoWaitAndNoInternals() {
        Map<String, Object> json = Json.parseObject(ProblemDetails.lost().toJson());
        assertThat(json).containsEntry("status", 500L).containsEntry("title", "Internal Server Error")
                .doesNotContainKey("retryAfter").doesNotContainKey("policy");
    }

    @Test
    void aLostLockSaysThatTheLockWasLostWithoutItsKey() {
        ExceptionResponses.Answer answer = ExceptionResponses.of(new LockLostException("order:secret-42",
                "Lock 'order:secret-42' (fencing token 7) lost"), HeaderMode.IETF);
        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.problem().detail()).contains("lock").contains("lost").doesNotContain("secret");
        assertThat(ExceptionResponses.of(new SluiceConfigException("sluice.lock.x.lease", "bad"), HeaderMode.IETF).problem().detail())
                .as("any other Sluice exception").doesNotContain("lost");
    }

    @Test
    void aLockOrPermitRefusedBecauseTheStoreIsUnreachableSaysSoRatherThanBusy() {
        StoreUnavailableException down = StoreUnavailableException.skipped(2_500);
        String busy = ExceptionResponses.of(new LockNotAcquiredException("k", Duration.ofMillis(5), null),
                HeaderMode.IETF).problem().detail();
        for (SluiceException e : List.of(new LockNotAcquiredException("k", Duration.ofMillis(5), down),
                new PermitNotAcquiredException("pdf", Duration.ofMillis(5), down))) {
            ExceptionResponses.Answer answer = ExceptionResponses.of(e, HeaderMode.IETF);
            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.problem().retryAfter()).isEqualTo(3);
            assertThat(answer.problem().detail()).isNotEqualTo(busy.replace("1 second", "3 seconds"))
                    .contains("cannot be reached").endsWith("retry after 3 seconds.");
        }
    }

    @Test
    void aRateLimitThatCannotBeCheckedSaysTheStoreCannotBeReached() {
        assertThat(ProblemDetails.serviceUnavailable(2).detail()).contains("cannot be reached")
                .endsWith("retry after 2 seconds.");
    }

    @Test
    void theIpv6PrefixIsALengthFrom0To128() {
        assertThat(new ClientAddress(List.of(), ForwardingHeader.X_FORWARDED_FOR, 0).resolve("2001:db8::1",
                List.of())).isNotNull();
        assertThat(new ClientAddress(List.of(), ForwardingHeader.X_FORWARDED_FOR, 128).resolve("2001:db8::1",
                List.of())).isNotNull();
        assertThatThrownBy(() -> new ClientAddress(List.of(), ForwardingHeader.X_FORWARDED_FOR, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClientAddress(List.of(), ForwardingHeader.X_FORWARDED_FOR, 129))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
