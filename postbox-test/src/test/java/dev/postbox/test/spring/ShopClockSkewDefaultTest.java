package dev.postbox.test.spring;

import dev.postbox.test.spring.shop.ShopApplication;

/** {@code @PostboxTest}'s default: no clock-skew check, so the relay an hour ahead still trusts its clock. */
@PostboxTest(classes = {ShopApplication.class, ShopClockSkewContract.HourAhead.class}, properties = {
        "spring.datasource.url=jdbc:h2:mem:shop-skew-default;DB_CLOSE_DELAY=-1",
        "spring.sql.init.schema-locations=classpath:shop/schema.sql", "spring.application.name=shop"})
class ShopClockSkewDefaultTest extends ShopClockSkewContract {

    @Override
    boolean trusted() {
        return true;
    }
}
