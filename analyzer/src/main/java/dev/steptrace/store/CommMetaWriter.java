package dev.steptrace.store;

import java.sql.SQLException;

/**
 * One file's rows of {@code comm_meta} (docs/schema.md): what a trace says of a collective, written
 * {@link #start}, the fields it knows (a null leaves its column NULL), then {@link #end}.
 */
public final class CommMetaWriter {
    /** The {@code comm_source} labels: where the fields were read. */
    public enum Source { CPU_OP, KERNEL }

    private final TableBatch batch;
    private final int fileId;
    private final int file;
    private final int source;
    private final int[] sources = new int[Source.values().length];
    private final int ts;
    private final int correlation;
    private final int externalId;
    private final int collective;
    private final int dtype;
    private final int inNelems;
    private final int outNelems;
    private final int groupSize;
    private final int pgName;
    private final int pgDesc;
    private final int pgRanks;
    private final int rank;
    private final int srcRank;
    private final int dstRank;
    private final int seq;
    private final int commsId;
    private final int inSplit;
    private final int outSplit;
    private final int isAsync;

    public CommMetaWriter(TableBatch batch, int fileId) {
        this.batch = batch;
        this.fileId = fileId;
        file = batch.column("file_id");
        source = batch.column("source");
        for (Source s : Source.values()) {
            sources[s.ordinal()] = batch.enumCode(source, s.name().toLowerCase(java.util.Locale.ROOT));
        }
        ts = batch.column("ts_ns");
        correlation = batch.column("correlation");
        externalId = batch.column("external_id");
        collective = batch.column("collective");
        dtype = batch.column("dtype");
        inNelems = batch.column("in_nelems");
        outNelems = batch.column("out_nelems");
        groupSize = batch.column("group_size");
        pgName = batch.column("pg_name");
        pgDesc = batch.column("pg_desc");
        pgRanks = batch.column("pg_ranks");
        rank = batch.column("rank");
        srcRank = batch.column("src_rank");
        dstRank = batch.column("dst_rank");
        seq = batch.column("seq");
        commsId = batch.column("comms_id");
        inSplit = batch.column("in_split");
        outSplit = batch.column("out_split");
        isAsync = batch.column("is_async");
    }

    /** Begins a row of this file: read from {@code source} at {@code tsNs}. */
    public void start(Source from, long tsNs) {
        batch.setInt(file, fileId);
        batch.setEnum(source, sources[from.ordinal()]);
        batch.setLong(ts, tsNs);
    }

    public void correlation(long value) {
        batch.setLong(correlation, value);
    }

    public void externalId(long value) {
        batch.setLong(externalId, value);
    }

    /** The collective's name and element type. */
    public void collective(String name, String elementType) {
        batch.setString(collective, name);
        batch.setString(dtype, elementType);
    }

    /** Elements in and out. */
    public void elements(Long in, Long out) {
        batch.setLongOrNull(inNelems, in);
        batch.setLongOrNull(outNelems, out);
    }

    /** The process group: its size, name, description and ranks (as the trace writes them). */
    public void group(Integer size, String name, String description, String ranks) {
        batch.setIntOrNull(groupSize, size);
        batch.setString(pgName, name);
        batch.setString(pgDesc, description);
        batch.setString(pgRanks, ranks);
    }

    /** This rank, and the source and destination ranks of a point-to-point operation. */
    public void ranks(Integer own, Integer source, Integer destination) {
        batch.setIntOrNull(rank, own);
        batch.setIntOrNull(srcRank, source);
        batch.setIntOrNull(dstRank, destination);
    }

    public void seq(Long value) {
        batch.setLongOrNull(seq, value);
    }

    /** The communicator's id, an unsigned 64-bit integer in decimal. */
    public void commsId(String unsignedDecimal) {
        if (unsignedDecimal != null) {
            batch.setUnsignedLong(commsId, Long.parseUnsignedLong(unsignedDecimal));
        }
    }

    /** The split sizes in and out (as the trace writes them). */
    public void splits(String in, String out) {
        batch.setString(inSplit, in);
        batch.setString(outSplit, out);
    }

    public void async(Boolean value) {
        if (value != null) {
            batch.setBoolean(isAsync, value);
        }
    }

    public void end() throws SQLException {
        batch.endRow();
    }

    /** Rows written so far. */
    public long rows() {
        return batch.rowsWritten();
    }
}
