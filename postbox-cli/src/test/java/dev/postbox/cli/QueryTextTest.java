package dev.postbox.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class QueryTextTest {

    @Test
    void wordsWithoutSpacesAreJoinedAsTyped() {
        assertThat(QueryText.join(List.of("status:dead", "topic:orders", "ORD-1"))).isEqualTo("status:dead topic:orders ORD-1");
    }

    @Test
    void aQualifierWhoseQuotesTheShellRemovedIsQuotedAgain() {
        // postbox search error:"connection refused"  ->  the argument error:connection refused
        assertThat(QueryText.join(List.of("error:connection refused: timeout", "attempts>=3")))
                .isEqualTo("error:\"connection refused: timeout\" attempts>=3");
        assertThat(QueryText.join(List.of("order 42"))).isEqualTo("\"order 42\"");
        assertThat(QueryText.join(List.of("error:say \"hi\"x"))).isEqualTo("error:say \"hi\"x");
    }

    @Test
    void aWholeQueryInOneArgumentPassesAsTyped() {
        assertThat(QueryText.join(List.of("status:dead topic:orders after:2h")))
                .isEqualTo("status:dead topic:orders after:2h");
        assertThat(QueryText.join(List.of("status:dead error:\"timed out\""))).isEqualTo("status:dead error:\"timed out\"");
    }
}
