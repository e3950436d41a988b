package dev.sluice;

/**
 * A configuration value is missing or malformed. Thrown while Sluice starts, so the deployment that
 * carries the bad value fails instead of running unprotected.
 *
 * <p>The message always names the key, the offending value and the accepted form, for example
 * {@code sluice.limit.api.rate: "ten/s" is not a rate; expected <tokens>/<duration> such as 100/1m or 10/1s}.
 */
public class SluiceConfigException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** The configuration key at fault. */
    private final String key;

    /**
     * @param key      the configuration key, e.g. {@code sluice.limit.api.rate}
     * @param value    the offending value as written (never a secret; pass {@code null} for secrets)
     * @param expected the accepted form, e.g. {@code <tokens>/<duration> such as 100/1m}
     */
    public SluiceConfigException(String key, String value, String expected) {
        super(key + ": " + (value == null ? "(absent)" : '"' + value + '"') + " is invalid; expected " + expected);
        this.key = key;
    }

    /**
     * For messages that do not fit the key/value/expected shape; {@code message} must still name the key.
     *
     * @param key     the configuration key
     * @param message the whole message, naming the key
     */
    public SluiceConfigException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** {@return the configuration key at fault} */
    public String key() {
        return key;
    }
}
