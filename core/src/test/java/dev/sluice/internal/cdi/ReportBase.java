package dev.sluice.internal.cdi;

import dev.sluice.Locked;

/** A superclass declaring the guarded method that its bean subclasses inherit. */
public abstract class ReportBase {

    @Locked(maxWait = "0")
    public String run() {
        return "ran";
    }
}
