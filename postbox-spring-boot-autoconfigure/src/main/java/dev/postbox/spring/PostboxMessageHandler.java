package dev.postbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of message events ({@code biz_message_event}) of one event type; the
 * starter's worker claims events of that type and calls the method with the
 * {@link dev.postbox.message.MessageRecord}. Returning records SUCCEEDED, throwing records a failed attempt.
 * <pre>{@code
 * @PostboxMessageHandler("ORDER_PAID")
 * void onPaid(MessageRecord event) { ... }
 * }</pre>
 * The method takes exactly one {@code MessageRecord} parameter. Delivery is at least once: make the effects
 * idempotent (e.g. {@link TransactionalInbox} in a {@code @Transactional} method). One handler per type.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PostboxMessageHandler {

    /** The event_type handled (at most 64 characters). */
    String value();

    /** What happens once the retries are used up: DEAD (a person decides) or CANCELLED. */
    dev.postbox.message.AfterMaxRetries afterMaxRetries() default dev.postbox.message.AfterMaxRetries.DEAD;
}
