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
 * still reach its subscribers through it) and a {@link PostboxAwait} whose {@code awaitQuiescence()} returns once
 * the outbox has nothing due and nothing in flight. Inject them with {@code @Autowired}.
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
}
