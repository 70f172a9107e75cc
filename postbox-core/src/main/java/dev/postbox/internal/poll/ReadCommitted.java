package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A data source Postbox runs transactions of its own on without owning it (the application's, on which a person's
 * actions run; one handed to a relay or a worker), seen with connections at READ COMMITTED where the database locks
 * index gaps at the stricter levels ({@link Dialect#locksIndexGaps()}: InnoDB), as the pools Postbox opens itself
 * ({@link Pools}) are from the start. InnoDB then locks the rows a statement reads or changes and no gap, so that
 * nothing the application or a relay inserts or moves next to them waits for the transaction. At REPEATABLE READ,
 * MySQL's and MariaDB's default, a locking read by event_no locks the gap before it in the unique key, a locking
 * read of a status or an aggregate the gaps of its range, and a write by id on the partitioned outbox (primary key
 * {@code (id, partition_time)}) the gap after the row: for the newest row, where every new row of its partition goes.
 * <p>
 * A connection at a stricter level gets it back when it is closed (a failure to restore it is logged, the connection
 * still closed); one at READ COMMITTED or below is handed out as it is, and so is every connection of another
 * dialect. Thread-safe.
 */
public final class ReadCommitted extends WrappingDataSource {

    private ReadCommitted(DataSource target) {
        super(target);
    }

    /** {@code target} seen so, or {@code target} itself where {@code dialect} locks no gaps. */
    public static DataSource of(Dialect dialect, DataSource target) {
        return dialect.locksIndexGaps() && !(target instanceof ReadCommitted) ? new ReadCommitted(target) : target;
    }

    @Override
    protected Connection prepare(Connection c) throws SQLException {
        int level = c.getTransactionIsolation();
        if (level <= Connection.TRANSACTION_READ_COMMITTED) {
            return c;
        }
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return closingWith(c, connection -> connection.setTransactionIsolation(level),
                "give it its isolation level back (" + level + ")");
    }
}
