-- The capture's kernel time in steps by the taxonomy rule that classified it (rules unclassified_kernels and
-- untyped_generic_collectives of docs/warnings.md): per rule id, its kernel names, launches and time.
-- Parameters: capture_id, analysis_key
-- Reads:   step_kernels, kernel_classes
-- Returns: rule_id, names, calls, ns (the time over every step of every rank), most time first
-- Portability: getvariable is DuckDB's.
SELECT k.rule_id, count(DISTINCT k.name) AS names, sum(s.calls) AS calls, sum(s.ns) AS ns
FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
WHERE s.capture_id = getvariable('capture_id') AND s.analysis_key = getvariable('analysis_key')
GROUP BY k.rule_id
ORDER BY ns DESC, k.rule_id;
