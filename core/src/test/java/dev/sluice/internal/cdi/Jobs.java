package dev.sluice.internal.cdi;

import jakarta.enterprise.context.ApplicationScoped;

/** Carries no Sluice annotation in its source; {@link LockingExtension} adds {@code @Locked} to {@link #run}. */
@ApplicationScoped
public class Jobs {

    public String run(String jobId) {
        return jobId;
    }
}
