package dev.postbox.spring.autoconfigure.jpa;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JPA applications: the entity and the outbox event commit or roll back together under a
 * {@link JpaTransactionManager}, which exposes its JDBC connection to the data source the starter writes on.
 */
class JpaTransactionTest {

    /** The entities' package, found as an application's own (Boot's {@code @EntityScan} moved package in Boot 4). */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = JpaOrder.class)
    static class Entities {
    }

    @Test
    void theEntityAndItsEventCommitAndRollBackTogetherOnPostgres() {
        try (TestDatabase db = TestDatabase.postgres(null)) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE,
                            BootLine.HIBERNATE_JPA, BootLine.TRANSACTION, PostboxAutoConfiguration.class))
                    .withUserConfiguration(Entities.class)
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user(),
                            "spring.jpa.hibernate.ddl-auto=create", "spring.jpa.open-in-view=false",
                            "postbox.schema.mode=always", "postbox.relay.enabled=false", "spring.application.name=jpa-test")
                    .run(ctx -> {
                        assertThat(ctx).hasNotFailed();
                        assertThat(ctx.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
                        TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
                        EntityManager em = org.springframework.orm.jpa.SharedEntityManagerCreator.createSharedEntityManager(
                                ctx.getBean(jakarta.persistence.EntityManagerFactory.class)); // transaction-bound, like @PersistenceContext
                        TransactionalOutbox outbox = ctx.getBean(TransactionalOutbox.class);
                        Postbox postbox = ctx.getBean(Postbox.class);

                        tx.executeWithoutResult(s -> {
                            em.persist(new JpaOrder("O-1", "CREATED"));
                            em.flush();
                            outbox.write(event("O-1"));
                        });
                        assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
                            em.persist(new JpaOrder("O-2", "CREATED"));
                            em.flush();
                            outbox.write(event("O-2"));
                            throw new IllegalStateException("rolled back after both writes");
                        })).hasMessageContaining("rolled back");

                        JpaOrder kept = tx.execute(s -> em.find(JpaOrder.class, "O-1"));
                        JpaOrder gone = tx.execute(s -> em.find(JpaOrder.class, "O-2"));
                        assertThat(kept).isNotNull();
                        assertThat(gone).isNull();
                        assertThat(postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1").orElseThrow().status())
                                .isEqualTo(OutboxStatus.PENDING);
                        assertThat(postbox.queries().outbox().byEventNo("ORDER_CREATED:O-2")).isEmpty();
                    });
        }
    }

    private static OutboxEvent event(String orderNo) {
        return OutboxEvent.builder().eventNo("ORDER_CREATED:" + orderNo).aggregate("ORDER", orderNo)
                .eventType("ORDER_CREATED").channel("EVENT_BUS").topic("order.event")
                .payload("{\"orderNo\":\"" + orderNo + "\"}").build();
    }
}
