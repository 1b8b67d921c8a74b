-- Stage 15, step phases (rank-local): the phase of each step vLLM's counts did not settle, from the CPU
-- annotations inside the step (its own name included) whose names hint at one (t_phase_hints, filled by
-- StepDetector: prefill/extend, decode, mixed): mixed when any says mixed or both prefill and decode
-- appear; a step with no hint is 'unknown'.
-- Reads:  t_steps, t_annot, t_phase_hints(name, hint)
-- Writes: t_steps.phase
-- Portability: bool_or and UPDATE ... FROM are DuckDB's (and PostgreSQL's).

UPDATE t_steps SET phase = h.phase
FROM (
    SELECT s.file_id, s.step,
           CASE WHEN bool_or(p.hint = 'mixed') OR (bool_or(p.hint = 'prefill') AND bool_or(p.hint = 'decode'))
                    THEN 'mixed'
                WHEN bool_or(p.hint = 'prefill') THEN 'prefill'
                WHEN bool_or(p.hint = 'decode') THEN 'decode' END AS phase
    FROM t_steps s
    JOIN t_annot a ON a.file_id = s.file_id AND a.ts_ns >= s.cpu_start AND a.ts_ns < s.cpu_end
    JOIN t_phase_hints p ON p.name = a.name
    WHERE s.phase IS NULL
    GROUP BY s.file_id, s.step
) h
WHERE t_steps.file_id = h.file_id AND t_steps.step = h.step AND t_steps.phase IS NULL;

UPDATE t_steps SET phase = 'unknown' WHERE phase IS NULL;
