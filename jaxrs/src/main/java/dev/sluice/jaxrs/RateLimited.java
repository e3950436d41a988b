package dev.sluice.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a JAX-RS resource method, or every resource method of a class, by the named rate-limit policy.
 *
 * <pre>{@code
 * @Path("search")
 * @RateLimited("api")                                        // every method of the class
 * public class SearchResource {
 *     @GET
 *     @RateLimited(value = "search", rate = "20/1s", key = "principal")   // adds to "api"
 *     public List<Hit> search(@QueryParam("q") String q) { ... }
 * }
 * }</pre>
 *
 * <p><b>Which policies apply.</b> A method is limited by every policy named on its class (inherited from
 * superclasses) plus every policy named on the method; the annotation is repeatable. When the same policy
 * is named on both, the method's annotation is the one used and the request is charged once. All policies of
 * a request are decided in one Redis round trip; the request goes ahead only if every one admits it.
 *
 * <p><b>Settings.</b> Each member below is a default for one key of {@code sluice.limit.<policy>.*}: the
 * configured value, when present, wins key by key, so operators retune limits without a rebuild. A policy
 * that the configuration does not define needs at least an inline {@link #rate()}; otherwise deployment
 * fails with a {@link dev.sluice.SluiceConfigException} naming the method and the policy. Settings are read
 * once, when the application is deployed.
 *
 * <p>This is not a JAX-RS {@code @NameBinding}: {@link RateLimitFeature}, through a {@code DynamicFeature} it registers, finds
 * the annotations itself (a name binding cannot see repeated annotations, which Java wraps in
 * {@link List}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

    /**
     * Policy name, as in {@code sluice.limit.<policy>.*}: letters, digits, {@code _} and {@code -}.
     * It is part of the Redis key, so two methods naming the same policy share its buckets.
     *
     * @return the policy name
     */
    String value();

    /**
     * Default for {@code sluice.limit.<policy>.rate}: one or more bandwidths such as {@code 100/1m} or
     * {@code 10/1s,1000/1h}. Empty (the default) means the configuration must define the policy.
     *
     * @return the default rate
     */
    String rate() default "";

    /**
     * Default for {@code sluice.limit.<policy>.burst}, the capacity of the first bandwidth, at least
     * {@link #cost()}. {@code 0} (the default) means "its token count".
     *
     * @return the default burst
     */
    long burst() default 0;

    /**
     * Default for {@code sluice.limit.<policy>.key}: {@code ip}, {@code principal}, {@code header:<Name>},
     * {@code query:<name>}, {@code path}, {@code path-param:<name>}, {@code global} or
     * {@code bean:<name>}. Empty (the default) means {@code ip}.
     *
     * @return the default key
     */
    String key() default "";

    /** {@return default for {@code sluice.limit.<policy>.cost}, tokens one request takes. {@code 0} (the default) means 1} */
    long cost() default 0;

    /** Holds repeated {@link RateLimited} annotations; written by the compiler, not by hand. */
    @Documented
    @Inherited
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @interface List {
        /** {@return the repeated annotations} */
        RateLimited[] value();
    }
}
