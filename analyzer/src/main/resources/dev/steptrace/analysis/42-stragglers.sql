-- Stage 42, stragglers: who arrived last at each collective instance (cross-rank: one row per instance
-- matched on every rank; docs/reports.md, "Stragglers"). A collective kernel spins until every rank has
-- arrived, so the rank with the shortest kernel arrived last (ties: the lowest rank), and every other
-- rank's wait was spent waiting for it. Durations, not start times, decide: they do not depend on the
-- ranks' clocks.
-- Reads:  t_collectives
-- Writes: t_collective_arrivals(instance, phase, phase_index, type, k, ranks, last_rank, last_file_id,
--         last_step, last_ts_ns, transfer_ns (the shortest duration), lateness_ns (the second-shortest
--         minus the shortest: how much later than the next-latest rank it arrived), wait_ns (the other
--         ranks' waits, summed), after_category (NULL here; stage 43 sets it for named stragglers))
-- Portability: any_value(...) FILTER (WHERE ...) is DuckDB's and PostgreSQL's; Spark SQL writes it
-- max(CASE WHEN nth = 1 THEN ... END) (nth is unique per instance, so either picks the one row).

CREATE OR REPLACE TEMP TABLE t_collective_arrivals AS
WITH ordered AS (
    SELECT instance, phase, phase_index, type, k, rank, file_id, step, ts_ns, dur_ns, wait_ns,
           row_number() OVER (PARTITION BY phase, phase_index, type, k ORDER BY dur_ns, rank) AS nth
    FROM t_collectives WHERE wait_ns IS NOT NULL
)
SELECT any_value(instance) AS instance, phase, phase_index, type, k, count(*)::INTEGER AS ranks,
       any_value(rank) FILTER (WHERE nth = 1) AS last_rank,
       any_value(file_id) FILTER (WHERE nth = 1) AS last_file_id,
       any_value(step) FILTER (WHERE nth = 1) AS last_step,
       any_value(ts_ns) FILTER (WHERE nth = 1) AS last_ts_ns,
       min(dur_ns) AS transfer_ns,
       coalesce(any_value(dur_ns) FILTER (WHERE nth = 2) - min(dur_ns), 0) AS lateness_ns,
       sum(wait_ns)::BIGINT AS wait_ns, NULL::VARCHAR AS after_category
FROM ordered GROUP BY phase, phase_index, type, k;
