package dev.steptrace.report;

import java.util.Map;

/**
 * One step of one rank, for the per-step charts and tables (report.json keeps only aggregates).
 *
 * @param index       the step's position within its phase on this rank, from 0
 * @param categoryMs  kernel ms of the step by headline category id
 * @param hostGapMs   GPU idle time since the previous step's last operation (null for the first step)
 * @param stepMs      the step time: its window on the rank (docs/reports.md, "Step time"); null when unknown
 */
public record StepPoint(int rank, String phase, int index, String name, double kernelMs, double spanMs,
                        double busyMs, Double hostGapMs, Map<String, Double> categoryMs, Double stepMs) {}
