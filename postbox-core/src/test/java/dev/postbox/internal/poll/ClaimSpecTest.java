package dev.postbox.internal.poll;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A claim spec refuses what no claim could run, naming the field; and renders the claim's SQL parts. */
class ClaimSpecTest {

    enum S { A, B, C }

    private static ClaimSpec.Statuses<S> statuses(S ready, S due, S claimed) {
        return new ClaimSpec.Statuses<>("st", s -> s.ordinal() + 7, ready, due, claimed);
    }

    @Test
    void theStatusesMustBeThreeDifferentOnes() {
        assertThatThrownBy(() -> statuses(S.A, S.A, S.C)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("statuses:");
        assertThatThrownBy(() -> new ClaimSpec.Statuses<>(" ", (S s) -> 1, S.A, S.B, S.C))
                .hasMessage("statuses.column: must be given");
    }

    @Test
    void theFilterArgumentsMustMatchItsParameters() {
        assertThatThrownBy(() -> new ClaimSpec.Filter(null, "e.q IN (?, ?)", List.of("x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("filter.args: 1 given for 2");
        assertThatThrownBy(() -> ClaimSpec.Filter.in(null, "e.q", List.of()))
                .hasMessageStartingWith("filter.args: at least one value of e.q");
        assertThat(ClaimSpec.Filter.in("e.deleted = 0", "e.q", List.of("x", "y")).sql()).isEqualTo("e.q IN (?, ?)");
    }

    @Test
    void theClaimSetTakesTheCodesFromTheEnumAndStampsOnlyTheGivenColumns() {
        ClaimSpec<Long, S> spec = new ClaimSpec<>("t",
                new ClaimSpec.Rows<Long>("id, st", (rs, d) -> rs.getLong(1), r -> r, r -> 0, (r, now) -> r),
                statuses(S.A, S.B, S.C), new ClaimSpec.Columns("due", "ver", null, "upd"), ClaimSpec.Filter.NONE,
                new ClaimSpec.Index("ix", "e.due, e.id"));
        assertThat(spec.claimSet()).isEqualTo("st = 9, ver = ver + 1, upd = ?");
        assertThat(spec.readyCondition()).isEqualTo("e.st = 7");
        assertThat(spec.dueCondition()).isEqualTo("e.st = 8 AND e.due <= ?");
        assertThat(spec.rows().qualified("u")).isEqualTo("u.id, u.st");
        assertThat(ClaimSpec.and(null, "a", null, "b")).isEqualTo("a AND b");
    }
}
