package dev.sluice.internal.limit;

import dev.sluice.internal.config.KeySpec;
import dev.sluice.test.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** The warning about shadowed policies' would-be refusals: rate-limited per policy, on a controlled clock. */
class ShadowLogTest {

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final AtomicLong nanos = new AtomicLong(42);
    private final ShadowLog log = new ShadowLog(nanos::get);

    private List<String> lines() {
        return logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text).toList();
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void theFirstRefusalIsToldAtOnceAndTheRestOfTheMinuteInTheNextLine() {
        log.wouldDeny("api", KeySpec.Type.IP, "10.0.0.1");
        assertThat(lines()).singleElement().asString()
                .contains("policy api is in shadow mode and would have refused 1 request since its last such line")
                .contains("e.g. key 10.0.0.1");
        for (int i = 0; i < 500; i++) {
            log.wouldDeny("api", KeySpec.Type.IP, "10.0.0." + (i % 7));
            advance(Duration.ofMillis(100));
        }
        // 500 refusals over 50 s: none is due yet
        assertThat(lines()).hasSize(1);
        advance(Duration.ofSeconds(10));
        log.wouldDeny("api", KeySpec.Type.IP, "10.0.0.99");
        assertThat(lines()).hasSize(2);
        assertThat(lines().get(1)).contains("would have refused 501 requests").contains("e.g. key 10.0.0.99");
    }

    @Test
    void eachPolicyHasItsOwnMinute() {
        log.wouldDeny("api", KeySpec.Type.IP, "a");
        log.wouldDeny("login", KeySpec.Type.IP, "b");
        log.wouldDeny("api", KeySpec.Type.IP, "c");
        assertThat(lines()).hasSize(2);
        assertThat(lines().get(1)).contains("policy login");
    }

    @Test
    void theExampleKeyIsShownAsATagUnlessItIsAnAddressSoRequestDataNeverReachesTheLog() {
        String hostile = "evil\r\nINJECTED line {" + "x".repeat(200);
        log.wouldDeny("api", KeySpec.Type.IP, hostile);
        assertThat(lines()).singleElement().asString()
                .doesNotContain("INJECTED").doesNotContain("\n").containsPattern("e\\.g\\. key #[0-9a-f]{8}\\)");
    }

    @Test
    void aLineIsDueAgainAfterExactlyOneMinute() {
        log.wouldDeny("api", KeySpec.Type.IP, "a");
        advance(Duration.ofMinutes(1).minusNanos(1));
        log.wouldDeny("api", KeySpec.Type.IP, "a");
        assertThat(lines()).hasSize(1);
        advance(Duration.ofNanos(1));
        log.wouldDeny("api", KeySpec.Type.IP, "a");
        assertThat(lines()).hasSize(2);
        assertThat(lines().get(1)).contains("would have refused 2 requests");
    }
}
