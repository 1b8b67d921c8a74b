package dev.steptrace.synth.kineto;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

/** Writes buffers to a plain file (or discards them) on the caller's thread. */
final class FileDrain implements JsonSink.Drain {
    private final OutputStream out;

    private FileDrain(OutputStream out) {
        this.out = out;
    }

    static FileDrain to(Path file) throws IOException {
        return new FileDrain(new FileOutputStream(file.toFile()));
    }

    /** Counts without writing: used to measure how many bytes a step takes. */
    static FileDrain discarding() {
        return new FileDrain(OutputStream.nullOutputStream());
    }

    @Override
    public byte[] drain(byte[] chunk, int length) throws IOException {
        out.write(chunk, 0, length);
        return chunk;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
