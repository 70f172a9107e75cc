package dev.postbox.examples.orders.inventory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo's broken dependency: until {@link #fix()} is called, the inventory consumer fails every ORDER_CREATED of
 * {@value #SKU} (as if the stock service did not know the SKU yet), so the relay retries the event and, after its
 * retries, makes it DEAD; the order's later events wait behind it. {@code POST /demo/poison/fix} is the fix an
 * operator would deploy; then retrying the event in the console delivers it.
 */
@Component
public class PoisonSku {

    /** The SKU whose orders fail until fixed. */
    public static final String SKU = "SKU-POISON";

    private static final Logger log = LoggerFactory.getLogger(PoisonSku.class);

    private final AtomicBoolean fixed = new AtomicBoolean();

    /** Throws while {@code sku} is the poison SKU and it is not fixed. */
    public void check(String sku) {
        if (SKU.equals(sku) && !fixed.get()) {
            throw new IllegalStateException("stock service: unknown SKU " + SKU);
        }
    }

    /** The cause is fixed: later deliveries of poison orders succeed. */
    public void fix() {
        if (fixed.compareAndSet(false, true)) {
            log.info("Demo: {} is known to the stock service now; retry its DEAD events in the console", SKU);
        }
    }

    public boolean fixed() {
        return fixed.get();
    }
}
