-- Collectives per phase, type and rank (docs/reports.md, "What the report shows"): the rank's calls, their time,
-- their waits (summed over the instances matched on every rank, and how many were), and for the phase
-- and type: the transfer time summed over matched instances, the median message size and the median bus
-- bandwidth (GB/s, from the transfer time where matched, else the duration; the group size where the
-- trace records it, else the capture's ranks).
-- Parameters: capture_id, analysis_key, ranks (the capture's rank count)
-- Reads:   collective_instances
-- Returns: phase, type, rank, calls, ns, wait_ns, matched, transfer_ns, msg_bytes, busbw_gbps
-- Portability: getvariable and median are DuckDB's.
WITH c AS (
    SELECT * FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
), per_rank AS (
    SELECT phase, type, rank, count(*) AS calls, sum(dur_ns) AS ns,
           sum(wait_ns) AS wait_ns, count(wait_ns) AS matched
    FROM c GROUP BY phase, type, rank
), transfer AS (
    SELECT phase, type, sum(transfer_ns) AS transfer_ns
    FROM (SELECT DISTINCT instance, phase, type, transfer_ns FROM c WHERE transfer_ns IS NOT NULL)
    GROUP BY phase, type
), sizes AS (
    SELECT phase, type, median(msg_bytes) AS msg_bytes,
           median(msg_bytes / coalesce(transfer_ns, dur_ns) * CASE
               WHEN type = 'allreduce' THEN 2.0 * (n - 1) / n
               WHEN type IN ('all_gather', 'reduce_scatter', 'all_to_all') THEN (n - 1)::DOUBLE / n
               ELSE 1.0 END) AS busbw_gbps
    FROM (SELECT *, coalesce(group_size, getvariable('ranks')) AS n
          FROM c WHERE msg_bytes IS NOT NULL AND dur_ns > 0)
    GROUP BY phase, type
)
SELECT p.phase, p.type, p.rank, p.calls, p.ns, p.wait_ns, p.matched, t.transfer_ns,
       z.msg_bytes, z.busbw_gbps
FROM per_rank p LEFT JOIN transfer t USING (phase, type) LEFT JOIN sizes z USING (phase, type)
ORDER BY p.phase, p.type, p.rank
