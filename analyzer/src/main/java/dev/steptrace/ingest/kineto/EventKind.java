package dev.steptrace.ingest.kineto;

/** What a kept trace event is, decided from its {@code cat} (every spelling Kineto has used). */
public enum EventKind {
    KERNEL, MEMCPY, MEMSET, SYNC,
    RUNTIME, DRIVER,
    CPU_OP, USER_ANNOTATION, GPU_USER_ANNOTATION, PYTHON_FUNCTION,
    /** A category no analysis reads (overhead, the profiler's own Trace span, cuda_event...). */
    OTHER;

    /**
     * How {@code with_modules=True} names the {@code python_function} event of an nn.Module's forward
     * ({@code nn.Module: Experts_0}): these are kept even when the other python_function events are dropped.
     */
    public static final String MODULE_PREFIX = "nn.Module: ";

    /** True when {@code name} is an nn.Module range's name ({@link #MODULE_PREFIX}). */
    public static boolean isModuleName(CharSequence name) {
        if (name == null || name.length() < MODULE_PREFIX.length()) {
            return false;
        }
        for (int i = 0; i < MODULE_PREFIX.length(); i++) {
            if (name.charAt(i) != MODULE_PREFIX.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@link #isModuleName} of characters. */
    static boolean isModuleName(char[] buf, int off, int len) {
        if (len < MODULE_PREFIX.length()) {
            return false;
        }
        for (int i = 0; i < MODULE_PREFIX.length(); i++) {
            if (buf[off + i] != MODULE_PREFIX.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@link #isModuleName} of the plain ASCII bytes of a JSON string. */
    static boolean isModuleName(byte[] b, int off, int len) {
        if (len < MODULE_PREFIX.length()) {
            return false;
        }
        for (int i = 0; i < MODULE_PREFIX.length(); i++) {
            if (b[off + i] != MODULE_PREFIX.charAt(i)) {
                return false;
            }
        }
        return true;
    }

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
