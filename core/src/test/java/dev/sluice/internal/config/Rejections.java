package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Shared assertion of the contract's error shape: the key and the offending value are both named. */
final class Rejections {

    private Rejections() {
    }

    /** Loads {@code values} and returns the message, after checking that it names {@code key} and {@code value}. */
    static String rejects(Map<String, String> values, String key, String value) {
        return rejects(() -> SluiceConfigLoader.load(ConfigSources.of(values)), key, value);
    }

    static String rejects(ThrowingCallable call, String key, String value) {
        SluiceConfigException e = catchThrowableOfType(SluiceConfigException.class, call);
        assertThat(e).as("expected a SluiceConfigException for %s=%s", key, value).isNotNull();
        assertThat(e.key()).isEqualTo(key);
        assertThat(e.getMessage()).startsWith(key + ":").contains(value);
        return e.getMessage();
    }
}
