package dev.sluice.internal.config;

/** {@code sluice.mode} and {@code sluice.limit.<policy>.mode}: whether a policy refuses requests. */
public enum PolicyMode {
    /** Refuses requests over the limit (the default). */
    ENFORCE,
    /** Decides and charges as usual but never refuses and sends no headers; would-be refusals are counted. */
    SHADOW
}
