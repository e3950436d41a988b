package dev.sluice.internal.cdi;

import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** {@code @Locked} on the class guards every business method; a method's own annotation wins. */
@ApplicationScoped
@Locked(maxWait = "0")
public class Archive {

    public String store() {
        return "stored";
    }

    @Locked(name = "purge-all", maxWait = "0")
    public String purge() {
        return "purged";
    }
}
