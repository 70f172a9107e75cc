package dev.postbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as an {@link Upcaster}: it takes the payload at version {@link #from()} as a
 * {@code String} (and optionally the {@link dev.postbox.spi.Envelope}) and returns the payload at {@link #to()}
 * as a {@code String}.
 * <pre>{@code
 * @PostboxUpcaster(eventType = "ORDER_CREATED", from = 1, to = 2)
 * String addCurrency(String v1) {
 *     return v1.replaceFirst("\\}$", ",\"currency\":\"EUR\"}");
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PostboxUpcaster {

    /** The event type whose payload the method upcasts. */
    String eventType();

    /** The version it reads. */
    int from();

    /** The version it returns; default {@code from + 1}. */
    int to() default -1;
}
