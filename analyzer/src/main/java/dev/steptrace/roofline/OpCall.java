package dev.steptrace.roofline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * One CPU op's recorded inputs ({@code op_shapes}), argument by argument: a tensor's dims and type, a
 * tensor list's dims, or a scalar's text from {@code Concrete Inputs}.
 */
record OpCall(String name, List<Arg> args) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One argument. {@code dims} is set for a tensor (a 0-dim tensor has an empty array), {@code list}
     * for a tensor list; {@code concrete} is the scalar's text ("" for tensors and absent values).
     */
    record Arg(String type, long[] dims, List<long[]> list, String concrete) {
        boolean isTensor() {
            return dims != null && Precision.elementBytes(type) != null;
        }

        long numel() {
            long n = 1;
            for (long d : dims) {
                n *= d;
            }
            return n;
        }

        /** Bytes of the tensor (0 for anything else). */
        double bytes() {
            return isTensor() ? numel() * Precision.elementBytes(type) : 0;
        }

        int rank() {
            return dims.length;
        }

        long dim(int i) {
            return dims[i < 0 ? dims.length + i : i];
        }
    }

    int size() {
        return args.size();
    }

    /** The argument at {@code i}, or null past the end. */
    Arg arg(int i) {
        return i < args.size() ? args.get(i) : null;
    }

    /** The tensor at {@code i}, or null when there is none. */
    Arg tensor(int i) {
        Arg a = arg(i);
        return a != null && a.isTensor() ? a : null;
    }

    /** A boolean scalar argument: true, false, or null when absent or not a boolean. */
    Boolean flag(int i) {
        Arg a = arg(i);
        if (a == null) {
            return null;
        }
        return switch (a.concrete()) {
            case "True", "true", "1" -> true;
            case "False", "false", "0" -> false;
            default -> null;
        };
    }

    /** An integer scalar argument, or null. */
    Long integer(int i) {
        Arg a = arg(i);
        if (a == null || a.concrete().isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(a.concrete().trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** From {@code op_shapes}' JSON texts (any may be null); null when the dims are not what record_shapes writes. */
    static OpCall parse(String name, String dimsJson, String typesJson, String concreteJson) {
        try {
            JsonNode dims = dimsJson == null ? null : JSON.readTree(dimsJson);
            JsonNode types = typesJson == null ? null : JSON.readTree(typesJson);
            JsonNode concrete = concreteJson == null ? null : JSON.readTree(concreteJson);
            if (dims == null || !dims.isArray()) {
                return null;
            }
            List<Arg> args = new ArrayList<>(dims.size());
            for (int i = 0; i < dims.size(); i++) {
                String type = types != null && i < types.size() ? types.get(i).asText() : "";
                String value = concrete != null && i < concrete.size() ? concrete.get(i).asText() : "";
                JsonNode d = dims.get(i);
                if ("TensorList".equals(type)) {
                    List<long[]> list = new ArrayList<>();
                    for (JsonNode t : d) {
                        list.add(longs(t));
                    }
                    args.add(new Arg(type, null, list, value));
                } else {
                    args.add(new Arg(type, longs(d), null, value));
                }
            }
            return new OpCall(name, args);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return null;
        }
    }

    private static long[] longs(JsonNode a) {
        if (!a.isArray()) {
            throw new IllegalArgumentException("dims are not a list");
        }
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            if (!a.get(i).canConvertToLong() || a.get(i).asLong() < 0) {
                throw new IllegalArgumentException("a dim is not a count");
            }
            out[i] = a.get(i).asLong();
        }
        return out;
    }
}
