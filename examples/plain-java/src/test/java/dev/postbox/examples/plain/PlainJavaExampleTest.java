package dev.postbox.examples.plain;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the whole example on a fresh in-memory H2 database and checks what it reports. */
class PlainJavaExampleTest {

    @Test
    void exampleWritesOnceReportsTheDuplicateAndLeavesNothingOfTheRolledBackOrder() throws Exception {
        String output = runExample();

        assertThat(output)
                .contains("outbox  ORDER_CREATED:ORDER-1001 -> INSERTED (id ")
                .contains("message SEND_ORDER_SMS:ORDER-1001 -> INSERTED (id ")
                .contains("outbox  ORDER_CREATED:ORDER-1001 -> DUPLICATE")
                .contains("stored row unchanged: true")
                .contains("after rollback: order ORDER-1003 present: false, outbox event present: false")
                .contains("claim -> true, fail -> RETRY_SCHEDULED");
        assertThat(section(output, "-- pending (2)"))
                .contains("ORDER_CREATED:ORDER-1001  PENDING")
                .contains("ORDER_CREATED:ORDER-1002  PENDING")
                .doesNotContain("ORDER-1003");
        assertThat(output)
                .contains("{PENDING=2, PUBLISHING=0, PUBLISHED=0, FAILED=0, CANCELLED=0, DEAD=0}")
                .contains("{PENDING=1, PROCESSING=0, SUCCEEDED=0, FAILED=1, CANCELLED=0, DEAD=0}");
        assertThat(section(output, "-- due retries (1)")).contains("SEND_ORDER_SMS:ORDER-1001 FAILED     retries=1/3");
    }

    private static String runExample() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:plain-java-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            PlainJavaExample.run(h2, out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The lines of the query whose heading is {@code heading}, up to the next heading. */
    private static String section(String output, String heading) {
        int start = output.indexOf(heading);
        assertThat(start).as("heading %s in output:%n%s", heading, output).isNotNegative();
        int end = output.indexOf("\n-- ", start + heading.length());
        return output.substring(start, end < 0 ? output.length() : end);
    }
}
