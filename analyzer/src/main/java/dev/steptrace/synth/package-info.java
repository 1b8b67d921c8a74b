/**
 * {@code steptrace synth}: synthetic multi-rank captures with a known answer. {@link
 * dev.steptrace.synth.Synthesizer} runs the workload model ({@code model}) once per rank, streams each
 * rank through a trace writer ({@code kineto}) and writes EXPECTED.json from the durations actually
 * written, so that every analysis the project builds can be checked against ground truth, at any size.
 */
package dev.steptrace.synth;
