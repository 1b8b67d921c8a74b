-- Before stage 12 (StepDetector): how many NVTX push/pop ranges the capture's files hold; the NVTX step source is
-- tried only where there are some.
-- Reads:   cpu_ops (store), t_files
-- Returns: ranges
SELECT count(*) AS ranges
FROM cpu_ops o JOIN t_files USING (file_id)
WHERE o.nvtx = 'push_pop';
