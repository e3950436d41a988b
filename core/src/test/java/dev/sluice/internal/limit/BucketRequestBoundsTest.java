package dev.sluice.internal.limit;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a store request accepts: a permit of one request for one millisecond at least, and no mixed shapes. */
class BucketRequestBoundsTest {

    private static final List<BucketRequest.Limit> ONE = List.of(BucketRequest.Limit.ofMicros(1000, 1));

    @Test
    void theSmallestPermitIsOneRequestForOneMillisecond() {
        BucketRequest.Permit smallest = new BucketRequest.Permit(1, 1, "a");
        assertThat(BucketRequest.permits("k", ChargeMode.CONCURRENCY, smallest).permit()).isEqualTo(smallest);
        assertThatThrownBy(() -> new BucketRequest.Permit(0, 1, "a")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest.Permit(1, 0, "a")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest.Permit(1, 1, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest.Permit(1, 1, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRateRequestHasACostAndBandwidthsAndNoPermit() {
        assertThat(new BucketRequest("k", 1, ONE).mode()).isEqualTo(ChargeMode.ENFORCE);
        assertThatThrownBy(() -> new BucketRequest("k", 0, ONE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost 0 with 1 bandwidths");
        assertThatThrownBy(() -> new BucketRequest("k", 1, List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest("k", 1, ONE, ChargeMode.ENFORCE,
                new BucketRequest.Permit(1, 1, "a"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost 1 with 1 bandwidths and a permit in mode ENFORCE");
        assertThatThrownBy(() -> new BucketRequest("k", 1, List.of(), ChargeMode.CONCURRENCY, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest("k", 2, List.of(), ChargeMode.CONCURRENCY,
                new BucketRequest.Permit(1, 1, "a"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRequest("k", 1, ONE, ChargeMode.CONCURRENCY,
                new BucketRequest.Permit(1, 1, "a"))).isInstanceOf(IllegalArgumentException.class);
    }
}
