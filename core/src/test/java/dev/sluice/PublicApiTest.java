package dev.sluice;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** What callers of the public API rely on beyond behaviour: serialization, construction, absent values. */
class PublicApiTest {

    private static <T> T roundTrip(T value) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            @SuppressWarnings("unchecked")
            T copy = (T) in.readObject();
            return copy;
        }
    }

    @Test
    void aRateLimitExceededExceptionKeepsItsPolicyAndWaitAcrossSerialization() throws Exception {
        RateLimitDecision decision = RateLimitDecision.of("login", false, 0, 5, 60, 12_000, 60_000);
        RateLimitExceededException copy = roundTrip(new RateLimitExceededException(decision));
        assertThat(copy.policy()).isEqualTo("login");
        assertThat(copy.retryAfter()).contains(Duration.ofSeconds(12));
        assertThat(copy.decision()).isEqualTo(decision);
        assertThat(copy.getMessage()).contains("login");
    }

    @Test
    void aDenialThatCanNeverPassHasNoRetryAfter() {
        RateLimitDecision never = RateLimitDecision.of("bulk", false, 0, 5, 60, RateLimitDecision.NEVER, 0);
        assertThat(new RateLimitExceededException(never).retryAfter()).isEmpty();
        assertThat(never.never()).isTrue();
    }

    @Test
    void aDecisionIsMadeByItsFactorySoThatFieldsCanBeAdded() {
        assertThat(RateLimitDecision.class.getConstructors()).as("no public constructor").isEmpty();
        assertThat(Arrays.stream(RateLimitDecision.class.getMethods())
                .filter(m -> m.getName().equals("of") && Modifier.isStatic(m.getModifiers()))).hasSize(1);
    }

    @Test
    void aStoreSkippedByTheBreakerSaysWhenItIsTriedAgain() throws Exception {
        assertThat(StoreUnavailableException.skipped(800).retryAfter()).contains(Duration.ofMillis(800));
        assertThat(new StoreUnavailableException("refused", null).retryAfter()).isEmpty();
        assertThat(roundTrip(StoreUnavailableException.skipped(800)).retryAfter()).contains(Duration.ofMillis(800));
    }
}
