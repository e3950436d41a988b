package dev.sluice.internal.http;

import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.test.Json;
import org.junit.jupiter.api.Test;

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
