package dev.postbox.spring;

import dev.postbox.message.AfterMaxRetries;
import dev.postbox.message.MessageHandler;

/**
 * A message-event handler bean that names its own event type: every bean of this type is registered with the
 * starter's worker, like a method annotated with {@link PostboxMessageHandler}.
 */
public interface EventTypeHandler extends MessageHandler {

    /** The event_type handled (at most 64 characters). */
    String eventType();

    /** What happens once the retries are used up; default DEAD. */
    default AfterMaxRetries afterMaxRetries() {
        return AfterMaxRetries.DEAD;
    }
}
