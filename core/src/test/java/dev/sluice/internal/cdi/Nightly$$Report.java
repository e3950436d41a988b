package dev.sluice.internal.cdi;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * A bean whose own name contains {@code $$}, as generated code sometimes does; it must still be named after
 * itself, not after its superclass.
 */
@ApplicationScoped
public class Nightly$$Report extends ReportBase {
}
