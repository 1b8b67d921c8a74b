package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A Kineto trace written by hand (times in µs): ranges on the CPU thread (ProfilerStep annotations, CPU ops, user
 * annotations, python functions), kernels each launched by a cudaLaunchKernel 5 µs before they start, and CUDA
 * graph replays whose kernels share their cudaGraphLaunch's correlation. Every CPU event is on thread (1, 1).
 */
public final class KinetoTrace {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ObjectNode root = JSON.createObjectNode();
    private final ArrayNode events = root.putArray("traceEvents");
    private int correlation;

    public KinetoTrace() {
        root.put("schemaVersion", 1);
        root.putObject("distributedInfo").put("rank", 0).put("world_size", 1);
    }

    /** A ProfilerStep#n annotation from {@code ts}, {@code dur} long. */
    public KinetoTrace step(int n, double ts, double dur) {
        return range("user_annotation", "ProfilerStep#" + n, ts, dur);
    }

    /** A range of category {@code cat} (cpu_op, user_annotation, python_function) on the CPU thread. */
    public KinetoTrace range(String cat, String name, double ts, double dur) {
        events.addObject().put("ph", "X").put("cat", cat).put("name", name).put("pid", 1).put("tid", 1).put("ts", ts)
                .put("dur", dur);
        return this;
    }

    /** A kernel on {@code stream} from {@code ts}, {@code dur} long, launched by a cudaLaunchKernel at {@code ts - 5}. */
    public KinetoTrace kernel(String name, int stream, double ts, double dur) {
        return kernel(name, stream, ts, dur, ts - 5);
    }

    /** A kernel on {@code stream} from {@code ts}, {@code dur} long, launched by a cudaLaunchKernel at {@code launchTs}. */
    public KinetoTrace kernel(String name, int stream, double ts, double dur, double launchTs) {
        int corr = ++correlation;
        launch("cudaLaunchKernel", launchTs, corr);
        gpu(name, stream, ts, dur, corr);
        return this;
    }

    /** A CUDA graph replay: a cudaGraphLaunch at {@code launchTs}, then {@code names} back to back from {@code ts}. */
    public KinetoTrace graph(double launchTs, int stream, double ts, double dur, String... names) {
        int corr = ++correlation;
        launch("cudaGraphLaunch", launchTs, corr);
        for (int i = 0; i < names.length; i++) {
            gpu(names[i], stream, ts + i * dur, dur, corr);
        }
        return this;
    }

    /** A runtime call that launches nothing (cudaStreamBeginCapture, cudaGraphInstantiate...) at {@code ts}, 2 µs long. */
    public KinetoTrace call(String name, double ts) {
        events.addObject().put("ph", "X").put("cat", "cuda_runtime").put("name", name).put("pid", 1).put("tid", 1)
                .put("ts", ts).put("dur", 2).putObject("args");
        return this;
    }

    /** A CPU op with an External id (what a runtime call inside it names to be found as its op). */
    public KinetoTrace op(String name, double ts, double dur, long externalId) {
        events.addObject().put("ph", "X").put("cat", "cpu_op").put("name", name).put("pid", 1).put("tid", 1).put("ts", ts)
                .put("dur", dur).putObject("args").put("External id", externalId);
        return this;
    }

    /** A runtime call of the CPU op with {@code externalId} (cudaStreamSynchronize, cudaMemcpyAsync...). */
    public KinetoTrace call(String name, double ts, double dur, long externalId) {
        events.addObject().put("ph", "X").put("cat", "cuda_runtime").put("name", name).put("pid", 1).put("tid", 1)
                .put("ts", ts).put("dur", dur).putObject("args").put("External id", externalId)
                .put("correlation", 100000 + ++correlation);
        return this;
    }

    private void launch(String name, double ts, int corr) {
        events.addObject().put("ph", "X").put("cat", "cuda_runtime").put("name", name).put("pid", 1).put("tid", 1)
                .put("ts", ts).put("dur", 2).putObject("args").put("correlation", corr);
    }

    private void gpu(String name, int stream, double ts, double dur, int corr) {
        events.addObject().put("ph", "X").put("cat", "kernel").put("name", name).put("pid", 0).put("tid", stream)
                .put("ts", ts).put("dur", dur).putObject("args").put("device", 0).put("stream", stream)
                .put("correlation", corr);
    }

    public ObjectNode root() {
        return root;
    }

    /** Writes the trace as {@code dir/rank0.pt.trace.json}. */
    public Path write(Path dir) throws IOException {
        Path file = dir.resolve("rank0.pt.trace.json");
        JSON.writeValue(file.toFile(), root);
        return file;
    }
}
