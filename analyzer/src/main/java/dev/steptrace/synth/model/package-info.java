/**
 * The synthetic workload, independent of any file format: presets as per-step kernel templates,
 * and a deterministic multi-rank timeline (jitter, launch gaps, collective waits, host ranges and the
 * ids that link them). A trace writer only formats what {@link dev.steptrace.synth.model.RankTimeline}
 * produces, so another format (an Nsight Systems export) can write the same workload.
 */
package dev.steptrace.synth.model;
