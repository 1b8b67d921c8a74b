-- Macros every analysis stage may use (SqlStage defines them before each stage's statements).
-- Portability: DuckDB's TEMP MACRO and // (integer division); Spark SQL would inline them (div).

-- Slices of a file's time for an equi-join of points onto intervals that do not overlap (stages 19
-- and 41): the intervals are listed by the equal slices they touch (slices_of), each point computes
-- its slice (slice_of), and only the few intervals of its slice are compared, instead of every point
-- with every interval or a sort of all the points. The width makes about twice as many slices as
-- intervals (docs/performance.md, "The analysis after ingest").
CREATE OR REPLACE TEMP MACRO slice_width(span_start, span_end, intervals) AS
    greatest(1, (span_end - span_start) // (2 * intervals));
CREATE OR REPLACE TEMP MACRO slice_of(ts, origin, width) AS (ts - origin) // width;
-- The slices touched by [lo, hi).
CREATE OR REPLACE TEMP MACRO slices_of(lo, hi, origin, width) AS
    range(slice_of(lo, origin, width), slice_of(hi - 1, origin, width) + 1);

-- Whether a class's category is a collective's (the taxonomy's two communication categories).
CREATE OR REPLACE TEMP MACRO collective_category(category) AS category IN ('allreduce', 'comm_other');

-- Whether a row is of the batch of files a statement runs for: SqlStage runs a statement that calls this
-- once per batch of the capture's files (stage 00's file_batches), with the variables batch_first and
-- batch_last set to the batch's first and last file ids: sorts and hash tables the size of a batch's, not
-- of the capture's. Unset (the DuckDB shell), every file at once.
CREATE OR REPLACE TEMP MACRO in_batch(file_id) AS
    getvariable('batch_first') IS NULL OR file_id BETWEEN getvariable('batch_first') AND getvariable('batch_last');
