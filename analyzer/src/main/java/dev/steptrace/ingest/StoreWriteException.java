package dev.steptrace.ingest;

import java.sql.SQLException;

/** A store failure inside a callback whose interface cannot throw SQLException (an event sink's). */
public final class StoreWriteException extends RuntimeException {
    public StoreWriteException(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    @Override
    public synchronized SQLException getCause() {
        return (SQLException) super.getCause();
    }
}
