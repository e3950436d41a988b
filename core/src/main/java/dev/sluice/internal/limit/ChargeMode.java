package dev.sluice.internal.limit;

/**
 * How one policy takes part in a decision of {@code gcra.lua} (its number travels as the policy's first
 * argument). The request is admitted when every {@link #ENFORCE}, {@link #CHECK} and {@link #CONCURRENCY} policy
 * admits it.
 */
public enum ChargeMode {

    /** Decides admission; charged when the whole request is admitted (all or nothing). */
    ENFORCE(0),
    /** Never refuses; charged when it alone would admit, whatever the other policies decide. */
    SHADOW(1),
    /** Decides admission but is never charged: the check before a request charged after its response. */
    CHECK(2),
    /** {@link #CHECK} that never refuses (a shadowed policy charged after the response). */
    SHADOW_CHECK(3),
    /**
     * Charges without deciding: after a response whose status the policy counts. The bucket never goes
     * further than empty, so requests admitted together can overshoot the limit but not stretch the wait.
     */
    CHARGE(4),
    /**
     * A concurrency limit: decides by the free permits of its key; takes one when the whole request is admitted
     * (the request then holds it until its response completes).
     */
    CONCURRENCY(5),
    /** {@link #CONCURRENCY} that never refuses: takes a permit when the request is admitted and one is free. */
    SHADOW_CONCURRENCY(6);

    private final int code;

    ChargeMode(int code) {
        this.code = code;
    }

    /** The number {@code gcra.lua} reads. */
    public int code() {
        return code;
    }

    /** Whether a refusal by this policy refuses the request. */
    public boolean decides() {
        return this == ENFORCE || this == CHECK || this == CONCURRENCY;
    }

    /** Whether the policy counts requests in flight (a permit set) rather than a rate (buckets). */
    public boolean concurrency() {
        return this == CONCURRENCY || this == SHADOW_CONCURRENCY;
    }
}
