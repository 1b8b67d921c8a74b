package dev.steptrace.ingest.kineto;

/** What a kept trace event is, decided from its {@code cat} (every spelling Kineto has used). */
public enum EventKind {
    KERNEL, MEMCPY, MEMSET, SYNC,
    RUNTIME, DRIVER,
    CPU_OP, USER_ANNOTATION, GPU_USER_ANNOTATION, PYTHON_FUNCTION,
    /** A category no analysis reads (overhead, the profiler's own Trace span, cuda_event...). */
    OTHER;

    /** Maps a {@code cat} value to its kind; unknown categories are {@link #OTHER}. */
    public static EventKind ofCategory(String cat) {
        switch (cat) {
            case "kernel":
            case "Kernel":
                return KERNEL;
            case "gpu_memcpy":
            case "Memcpy":
                return MEMCPY;
            case "gpu_memset":
            case "Memset":
                return MEMSET;
            case "cuda_sync":
                return SYNC;
            case "cpu_op":
            case "Operator":
                return CPU_OP;
            case "user_annotation":
            case "User":
                return USER_ANNOTATION;
            case "gpu_user_annotation":
            case "gpu_user_Annotation":
                return GPU_USER_ANNOTATION;
            case "python_function":
                return PYTHON_FUNCTION;
            case "Runtime":
                return RUNTIME;
            default:
                // cuda_runtime, xpu_runtime, mtia_runtime, privateuse1_runtime; *_driver likewise.
                if (cat.endsWith("_runtime")) {
                    return RUNTIME;
                }
                if (cat.endsWith("_driver")) {
                    return DRIVER;
                }
                return OTHER;
        }
    }
}
