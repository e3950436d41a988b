package dev.sluice.internal.cdi;

import dev.sluice.Locked;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.util.AnnotationLiteral;

/** A portable extension of an application that adds {@code @Locked} to {@link Jobs#run} at deployment. */
public class LockingExtension implements Extension {

    void lockJobs(@Observes ProcessAnnotatedType<Jobs> event) {
        event.configureAnnotatedType().filterMethods(m -> m.getJavaMember().getName().equals("run"))
                .forEach(m -> m.add(new LockedLiteral("job:{0}", "0")));
    }

    @SuppressWarnings("all")
    static final class LockedLiteral extends AnnotationLiteral<Locked> implements Locked {
        private final String key;
        private final String maxWait;

        LockedLiteral(String key, String maxWait) {
            this.key = key;
            this.maxWait = maxWait;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public String lease() {
            return "30s";
        }

        @Override
        public String maxWait() {
            return maxWait;
        }

        @Override
        public String name() {
            return "";
        }

        @Override
        public OnLost onLost() {
            return OnLost.THROW;
        }
    }
}
