/** Writes the synthetic workload as torch.profiler (Kineto) Chrome-trace JSON, plain or gzip, streaming. */
package dev.steptrace.synth.kineto;
