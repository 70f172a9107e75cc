package dev.postbox.test.spring;

import dev.postbox.test.spring.shop.ShopApplication;

/** A test that sets {@code postbox.relay.clock-skew-check=true} keeps the check: an hour ahead is not trusted. */
@PostboxTest(classes = {ShopApplication.class, ShopClockSkewContract.HourAhead.class}, properties = {
        "spring.datasource.url=jdbc:h2:mem:shop-skew-checked;DB_CLOSE_DELAY=-1",
        "spring.sql.init.schema-locations=classpath:shop/schema.sql", "spring.application.name=shop",
        "postbox.relay.clock-skew-check=true"})
class ShopClockSkewCheckedTest extends ShopClockSkewContract {

    @Override
    boolean trusted() {
        return false;
    }
}
