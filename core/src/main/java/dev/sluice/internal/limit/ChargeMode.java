package dev.sluice.internal.limit;

/**
 * How one policy takes part in a decision of {@code gcra.lua}. The request is admitted when every {@link #ENFORCE},
 * {@link #CHECK} and {@link #CONCURRENCY} policy admits it. The script does not know these modes: each travels as
 * what it means, whether it {@link #decides()} and when it is charged ({@link #charge()}), see {@link GcraProtocol}.
 */
public enum ChargeMode {

    /** Decides admission; charged when the whole request is admitted (all or nothing). */
    ENFORCE(true, Charge.IF_ALL_ADMIT),
    /** Never refuses; charged when it alone would admit, whatever the other policies decide. */
    SHADOW(false, Charge.IF_IT_ADMITS),
    /** Decides admission but is never charged: the check before a request charged after its response. */
    CHECK(true, Charge.NEVER),
    /** {@link #CHECK} that never refuses (a shadowed policy charged after the response). */
    SHADOW_CHECK(false, Charge.NEVER),
    /**
     * Charges without deciding: after a response whose status the policy counts. The bucket never goes
     * further than empty, so requests admitted together can overshoot the limit but not stretch the wait.
     */
    CHARGE(false, Charge.ALWAYS),
    /**
     * A concurrency limit: decides by the free permits of its key; takes one when the whole request is admitted
     * (the request then holds it until its response completes).
     */
    CONCURRENCY(true, Charge.IF_ALL_ADMIT),
    /** {@link #CONCURRENCY} that never refuses: takes a permit when the request is admitted and one is free. */
    SHADOW_CONCURRENCY(false, Charge.IF_ALL_ADMIT),
    /**
     * Gives {@code cost} tokens back without deciding: the unspent part of a node's local budget. The bucket moves back
     * by the cost, never fuller than full.
     */
    REFUND(false, Charge.REFUND);

    /** When a policy is charged (a bucket moved by the cost, a permit taken); each has its name on the wire. */
    public enum Charge {
        /** Never: only decided. */
        NEVER("never"),
        /** When the request is admitted (every deciding policy admits it) and this policy admits it too. */
        IF_ALL_ADMIT("if-all-admit"),
        /** When this policy admits the request, whatever the others decide. */
        IF_IT_ADMITS("if-it-admits"),
        /** Whatever is decided, never further than an empty bucket; buckets only. */
        ALWAYS("always"),
        /** Given back: the bucket moves back by the cost, never fuller than full; buckets only, never refusing. */
        REFUND("refund");

        private final String wire;

        Charge(String wire) {
            this.wire = wire;
        }

        /** The word {@code gcra.lua} reads. */
        public String wire() {
            return wire;
        }
    }

    private final boolean decides;
    private final Charge charge;

    ChargeMode(boolean decides, Charge charge) {
        this.decides = decides;
        this.charge = charge;
    }

    /** Whether a refusal by this policy refuses the request. */
    public boolean decides() {
        return decides;
    }

    /** When the policy is charged. */
    public Charge charge() {
        return charge;
    }

    /** Whether the policy counts requests in flight (a permit set) rather than a rate (buckets). */
    public boolean concurrency() {
        return this == CONCURRENCY || this == SHADOW_CONCURRENCY;
    }
}
