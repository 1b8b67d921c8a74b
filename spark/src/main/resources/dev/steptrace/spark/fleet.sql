-- Fleet queries (docs/spark.md): questions over the dataset of many captures, as views, in SQL that Spark
-- and DuckDB both run. They read the dataset's tables `files`, `phase_categories` and `collective_arrivals`.

-- view: category_trend
-- A category's ms per step per capture and phase, with when the capture began (its first event, ns since
-- the epoch): "when did MoE routing start growing?" is
--   SELECT * FROM category_trend WHERE phase = 'decode' AND category = 'routing' ORDER BY started_ns
SELECT p.capture, f.started_ns, p.phase, p.category, p.ms_per_step, p.calls_per_step
FROM phase_categories p
JOIN (SELECT capture, min(first_ts_ns) AS started_ns FROM files GROUP BY capture) f ON f.capture = p.capture;

-- view: worst_straggler
-- Per capture, the rank whose late arrivals at collectives made the other ranks wait longest, and that
-- wait (ns, summed over the capture's matched instances and the waiting ranks).
SELECT capture, last_rank AS rank, waited_ns
FROM (SELECT capture, last_rank, sum(wait_ns) AS waited_ns,
             row_number() OVER (PARTITION BY capture ORDER BY sum(wait_ns) DESC, last_rank) AS nth
      FROM collective_arrivals GROUP BY capture, last_rank) ranked
WHERE nth = 1;
