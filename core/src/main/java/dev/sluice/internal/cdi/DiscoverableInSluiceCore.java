package dev.sluice.internal.cdi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the classes of sluice-core that its {@code META-INF/beans.xml} lets the container discover, so that
 * {@link SluiceExtension} can ask for exactly their {@code ProcessAnnotatedType} events
 * ({@code @WithAnnotations(DiscoverableInSluiceCore.class)}) instead of observing every type of the application.
 * An annotation of sluice-core's own, because the classes' other annotations (MicroProfile Health's
 * {@code @Readiness}) may not exist where the extension runs.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface DiscoverableInSluiceCore {
}
