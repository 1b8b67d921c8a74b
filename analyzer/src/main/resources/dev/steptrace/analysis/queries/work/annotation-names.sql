-- After stage 10 (StepDetector): the capture's distinct annotation names that may mark steps, each once, for Java's
-- regular expressions (the step sources' patterns, --step-regex) and the phase hints.
-- Reads:   t_annot
-- Returns: name
SELECT DISTINCT name FROM t_annot ORDER BY name;
