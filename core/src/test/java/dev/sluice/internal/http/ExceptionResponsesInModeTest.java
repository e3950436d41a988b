package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.RateLimitExceededException;
import dev.sluice.internal.config.HeaderMode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The JAX-RS exception mapper's answers: a refusal carries the headers of the application's header mode. */
class ExceptionResponsesInModeTest {

    private final RateLimitExceededException refused = new RateLimitExceededException(
            RateLimitDecision.of("api", false, 0, 10, 60, 5_000, 60_000));

    @Test
    void aRefusalIsAnsweredWithTheHeadersOfTheApplicationsMode() {
        ExceptionResponses.Answer legacy = new ExceptionResponses.InMode(HeaderMode.LEGACY).of(refused);
        ExceptionResponses.Answer none = new ExceptionResponses.InMode(HeaderMode.NONE).of(refused);

        assertThat(legacy.status()).isEqualTo(429);
        assertThat(legacy.headers()).isEqualTo(RateLimitHeaders.denied(List.of(refused.decision()), HeaderMode.LEGACY));
        assertThat(none.headers()).isEqualTo(RateLimitHeaders.denied(List.of(refused.decision()), HeaderMode.NONE))
                .isNotEqualTo(legacy.headers());
        assertThat(legacy.problem().toJson()).isEqualTo(ProblemDetails.tooManyRequests(List.of(refused.decision())).toJson());
    }
}
