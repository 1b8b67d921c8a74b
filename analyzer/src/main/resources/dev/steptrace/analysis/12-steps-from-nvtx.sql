-- Stage 12, steps from NVTX ranges (rank-local; Nsight Systems captures whose annotations matched no
-- named step source; docs/formats.md, "Steps from NVTX"). Per file:
--   1. the main thread is the one whose runtime/driver calls launched the most GPU operations (calls whose
--      correlation id a GPU operation carries);
--   2. candidates are that thread's NVTX push/pop ranges with a duration, except those of library domains
--      (library_nvtx_domains: NCCL marks its own API calls);
--   3. a range's level is how many candidate ranges enclose it; a range is busy when one of the main
--      thread's GPU launches falls inside it;
--   4. the step level is the shallowest level with more than one busy range (a single range around the
--      whole run is not a step: the level below it is used);
--   5. a step repeats at that level and tiles the GPU work: the steps are the ranges of one family (names
--      equal once digit runs are replaced, so step_1, step_2 are one family) with at least two ranges, a
--      name that does not say "layer" (layers inside a step are not steps), holding at least
--      nvtx_step_share of the GPU time the thread launched inside its top-level ranges; the family
--      holding the most wins;
--   6. when every level has a single busy range, the outermost is the one step.
-- A file whose best family is not steps gets a note (nvtx_ranges_not_steps) and the capture takes the
-- next step source (StepDetector): t_steps is then replaced.
-- Parameters (DuckDB variables): nvtx_step_share (0.9), library_nvtx_domains (a list)
-- Reads:  cpu_ops, launches, gpu_ops, names (store); t_files, t_step_notes
-- Writes: t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number) (phase and step_number
--         NULL); rows of t_step_notes; helpers h_nvtx_launch, h_nvtx_main, h_nvtx_ranges, h_nvtx_levels,
--         h_nvtx_busy, h_nvtx_family
-- Portability: getvariable, list_contains, regexp_replace/regexp_matches, QUALIFY, FILTER and :: casts
-- are DuckDB's.

CREATE OR REPLACE TEMP TABLE h_nvtx_launch AS
SELECT l.file_id, l.pid, l.tid, l.ts_ns, g.ns
FROM launches l JOIN t_files USING (file_id)
JOIN (SELECT g.file_id, g.correlation, sum(g.dur_ns) AS ns FROM gpu_ops g JOIN t_files USING (file_id)
      WHERE g.correlation IS NOT NULL AND g.kind <> 'sync' GROUP BY g.file_id, g.correlation) g
    ON g.file_id = l.file_id AND g.correlation = l.correlation;

CREATE OR REPLACE TEMP TABLE h_nvtx_main AS
SELECT file_id, pid, tid FROM h_nvtx_launch
GROUP BY file_id, pid, tid
QUALIFY row_number() OVER (PARTITION BY file_id ORDER BY count(*) DESC, pid, tid) = 1;

CREATE OR REPLACE TEMP TABLE h_nvtx_ranges AS
SELECT row_number() OVER () AS id, o.file_id, n.name, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns
FROM cpu_ops o JOIN h_nvtx_main m ON m.file_id = o.file_id AND m.pid = o.pid AND m.tid = o.tid
JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
WHERE o.nvtx = 'push_pop' AND o.dur_ns > 0
  AND (o.nvtx_domain IS NULL OR NOT list_contains(getvariable('library_nvtx_domains'), o.nvtx_domain));

-- Level by a sweep over start (+1) and end (-1) events: ends before starts at the same time, and of
-- ranges starting together the longer first (push/pop ranges of a thread nest).
CREATE OR REPLACE TEMP TABLE h_nvtx_levels AS
WITH ev AS (
    SELECT file_id, id, ts_ns AS t, 1 AS delta, 1 AS ord, end_ns FROM h_nvtx_ranges
    UNION ALL
    SELECT file_id, id, end_ns AS t, -1 AS delta, 0 AS ord, end_ns FROM h_nvtx_ranges
), run AS (
    SELECT id, delta,
           sum(delta) OVER (PARTITION BY file_id ORDER BY t, ord, end_ns DESC, id
                            ROWS UNBOUNDED PRECEDING) - 1 AS level
    FROM ev
)
SELECT r.*, run.level FROM h_nvtx_ranges r JOIN run ON run.id = r.id AND run.delta = 1;

CREATE OR REPLACE TEMP TABLE h_nvtx_busy AS
SELECT r.id, r.file_id, r.name, regexp_replace(r.name, '[0-9]+', '#', 'g') AS family, r.ts_ns,
       r.end_ns, r.level, sum(l.ns) AS ns
FROM h_nvtx_levels r
JOIN h_nvtx_main m ON m.file_id = r.file_id
JOIN h_nvtx_launch l ON l.file_id = r.file_id AND l.pid = m.pid AND l.tid = m.tid
    AND l.ts_ns >= r.ts_ns AND l.ts_ns < r.end_ns
GROUP BY r.id, r.file_id, r.name, r.ts_ns, r.end_ns, r.level;

-- Per file, the step family: at the first level reached through single wrapping ranges, a family that
-- repeats, is not named per layer and holds nvtx_step_share of the GPU time; when every level has one
-- range, the outermost is the one step; otherwise the best candidate, for the note.
CREATE OR REPLACE TEMP TABLE h_nvtx_family AS
WITH per_level AS (
    SELECT file_id, level, count(*) AS n FROM h_nvtx_busy GROUP BY file_id, level
), reach AS (
    SELECT file_id, coalesce(min(level) FILTER (WHERE n <> 1), max(level)) AS level,
           max(n) = 1 AS single
    FROM per_level GROUP BY file_id
), top AS (
    SELECT file_id, sum(ns) AS ns FROM h_nvtx_busy WHERE level = 0 GROUP BY file_id
), families AS (
    SELECT b.file_id, b.level, b.family, count(*) AS n, sum(b.ns) / t.ns AS share,
           regexp_matches(b.family, '(?i)layer') AS layer
    FROM h_nvtx_busy b JOIN top t USING (file_id)
    GROUP BY b.file_id, b.level, b.family, t.ns
), judged AS (
    SELECT f.*, r.level AS reach, r.single,
           r.single OR (f.n >= 2 AND NOT f.layer AND f.share >= getvariable('nvtx_step_share')) AS steps
    FROM families f JOIN reach r USING (file_id)
    WHERE f.level <= r.level
)
SELECT file_id, level, family, n, share, layer, steps FROM judged
QUALIFY row_number() OVER (PARTITION BY file_id
                           ORDER BY steps DESC, CASE WHEN single THEN -level ELSE (level = reach)::INTEGER END DESC,
                                    n >= 2 DESC, share DESC, family) = 1;

INSERT INTO t_step_notes
SELECT f.file_id, 'nvtx_ranges_not_steps',
       'rank ' || coalesce(t.rank::VARCHAR, '?') || ': NVTX ranges do not mark steps: the range family'
       || ' at the top level (below single wrapping ranges) holding the most GPU work, '''
       || f.family || ''' (' || f.n || ' range(s), ' || round(100 * f.share, 1)
       || '% of the GPU time its thread launched inside its top-level ranges), '
       || CASE WHEN f.layer THEN 'is named per layer: layers are not steps'
               ELSE 'does not repeat and hold at least '
                    || round(100 * getvariable('nvtx_step_share'))::BIGINT || '% of it' END
       || ' (docs/formats.md, steps from NVTX)'
FROM h_nvtx_family f JOIN t_files t USING (file_id)
WHERE NOT f.steps ORDER BY t.rank;

CREATE OR REPLACE TEMP TABLE t_steps AS
SELECT b.file_id, (row_number() OVER (PARTITION BY b.file_id ORDER BY b.ts_ns) - 1)::INTEGER AS step,
       b.name, NULL::VARCHAR AS phase, b.ts_ns AS cpu_start, b.end_ns AS cpu_end,
       NULL::BIGINT AS step_number
FROM h_nvtx_busy b JOIN h_nvtx_family f USING (file_id, level, family);
