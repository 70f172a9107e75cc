package dev.postbox.test.spring;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link SpringBootTest} of an application on the Postbox starter, with Postbox's test kit swapped in where the
 * application does not define its own ({@link PostboxTestAutoConfiguration}): the {@code Postbox} bean on a
 * {@link dev.postbox.test.TestClock} (also the primary {@code java.time.Clock}), a
 * {@link dev.postbox.test.RecordingPublisher} as the relay's publisher (events on the in-process event bus's channels
 * still reach its subscribers through it; with {@link #publishTo()} {@code TRANSPORTS} every event goes on to its real
 * transport) and a {@link PostboxAwait} whose {@code awaitQuiescence()} returns once the outbox has nothing due and
 * nothing in flight, and whose {@code awaitConsumed(consumer, eventNos...)} returns once a consumer has consumed
 * them. Inject them with {@code @Autowired}.
 *
 * <pre>{@code
 * @PostboxTest
 * class CheckoutTest {
 *     @Autowired CheckoutService checkout;
 *     @Autowired RecordingPublisher publisher;
 *     @Autowired PostboxAwait postbox;
 *
 *     @Test
 *     void placingAnOrderPublishesIt() {
 *         String orderNo = checkout.place("book");
 *         postbox.awaitQuiescence();
 *         publisher.assertPublished("ORDER_CREATED:" + orderNo);
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest
@ImportAutoConfiguration(PostboxTestAutoConfiguration.class)
public @interface PostboxTest {

    /** The configuration classes of the test's context ({@link SpringBootTest#classes()}); default: found as Boot finds them. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "classes")
    Class<?>[] classes() default {};

    /** Properties of the test's context, {@code key=value} ({@link SpringBootTest#properties()}). */
    @AliasFor(annotation = SpringBootTest.class, attribute = "properties")
    String[] properties() default {};

    /**
     * Where the relay's recording publisher sends what it records: {@link PublishTo#EVENT_BUS} (default: only the
     * in-process event bus's channels are delivered, every other event is acknowledged without a broker) or
     * {@link PublishTo#TRANSPORTS} (every event to the broker its channel is routed to, for tests of
     * {@code @PostboxListener} consumers on Kafka, RabbitMQ, NATS or HTTP; wait for them with
     * {@link PostboxAwait#awaitConsumed}).
     */
    PublishTo publishTo() default PublishTo.EVENT_BUS;

    /** Where a {@link PostboxTest}'s relay publishes. */
    enum PublishTo {
        /** Only the event bus's channels are delivered (to the application's subscribers); the rest is recorded and acknowledged. */
        EVENT_BUS("event-bus"),
        /** Every event goes to its channel's route, the real transports, and is recorded. */
        TRANSPORTS("transports");

        private final String property;

        PublishTo(String property) {
            this.property = property;
        }

        /** The value of {@code postbox.test.publish-to} that selects it. */
        public String property() {
            return property;
        }

        /** The value named by {@code property}; {@code event-bus} when null. */
        public static PublishTo of(String property) {
            if (property == null || property.isBlank()) {
                return EVENT_BUS;
            }
            for (PublishTo p : values()) {
                if (p.property.equalsIgnoreCase(property.trim())) {
                    return p;
                }
            }
            throw new IllegalArgumentException("postbox.test.publish-to: must be event-bus or transports (was '"
                    + property + "')");
        }
    }
}
