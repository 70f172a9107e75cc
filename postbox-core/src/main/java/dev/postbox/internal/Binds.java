package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** Binds a statement's parameters by their Java type: instants through the dialect, numbers, everything else as text. */
public final class Binds {

    private Binds() {
    }

    /** Binds {@code params} as parameters 1..n of {@code ps}. */
    public static void bind(PreparedStatement ps, Dialect dialect, List<?> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) {
            Object p = params.get(i);
            if (p instanceof Instant t) {
                dialect.bindTime(ps, i + 1, t);
            } else if (p instanceof Long n) {
                ps.setLong(i + 1, n);
            } else if (p instanceof Integer n) {
                ps.setInt(i + 1, n);
            } else {
                ps.setString(i + 1, (String) p);
            }
        }
    }
}
