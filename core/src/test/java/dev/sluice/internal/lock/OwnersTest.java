package dev.sluice.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class OwnersTest {

    @Test
    void tokensAre128BitHexAndNeverRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            String token = Owners.newToken();
            assertThat(token).matches("[0-9a-f]{32}");
            assertThat(seen.add(token)).as("token %s repeated", token).isTrue();
        }
    }

    @Test
    void consecutiveTokensDoNotLookConsecutive() {
        String first = Owners.newToken();
        String second = Owners.newToken();
        assertThat(first.substring(0, 16)).as("the JVM's random part").isEqualTo(second.substring(0, 16));
        long a = Long.parseUnsignedLong(first.substring(16), 16);
        long b = Long.parseUnsignedLong(second.substring(16), 16);
        assertThat(Long.bitCount(a ^ b)).as("a sequence number would differ in a few low bits").isGreaterThan(8);
    }
}
