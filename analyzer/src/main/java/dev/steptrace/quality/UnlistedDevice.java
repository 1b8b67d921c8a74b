package dev.steptrace.quality;

import java.sql.ResultSet;
import java.sql.SQLException;

/** What the device rules say of a row of query {@code unlisted-devices}: a file's work on ids its device list lacks. */
final class UnlistedDevice {
    private UnlistedDevice() {}

    /** Where, in words: the rank, the ids its GPU operations ran on, and what the device list has. */
    static String where(ResultSet rs) throws SQLException {
        return "rank " + rs.getObject(1) + ": GPU operations run on device " + rs.getString(3)
                + ", which the trace's device list does not have ("
                + (rs.getString(6) == null ? "it lists none" : "it lists id " + rs.getString(6)) + ")";
    }
}
