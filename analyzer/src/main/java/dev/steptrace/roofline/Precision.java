package dev.steptrace.roofline;

import java.util.Map;

/**
 * The tensor-core precisions the device peaks give a rate for, and the element sizes of the types
 * PyTorch writes into {@code Input type} (its C++ type names), which the byte models multiply by.
 */
public enum Precision {
    BF16("bf16"), FP16("fp16"), FP8("fp8"), INT8("int8");

    private final String id;

    Precision(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** Bytes per element of each type name record_shapes writes; fp4 packs two values per byte. */
    private static final Map<String, Double> ELEMENT_BYTES = Map.ofEntries(
            Map.entry("c10::BFloat16", 2.0), Map.entry("c10::Half", 2.0), Map.entry("float", 4.0),
            Map.entry("double", 8.0), Map.entry("c10::Float8_e4m3fn", 1.0), Map.entry("c10::Float8_e5m2", 1.0),
            Map.entry("c10::Float8_e4m3fnuz", 1.0), Map.entry("c10::Float8_e5m2fnuz", 1.0),
            Map.entry("c10::Float8_e8m0fnu", 1.0), Map.entry("c10::Float4_e2m1fn_x2", 1.0),
            Map.entry("signed char", 1.0), Map.entry("unsigned char", 1.0), Map.entry("bool", 1.0),
            Map.entry("short int", 2.0), Map.entry("int", 4.0), Map.entry("unsigned int", 4.0),
            Map.entry("long int", 8.0), Map.entry("c10::complex<float>", 8.0), Map.entry("c10::complex<double>", 16.0));

    /** The element size of a type name, or null for a name that is not a tensor type (Scalar, "", lists). */
    public static Double elementBytes(String type) {
        return type == null ? null : ELEMENT_BYTES.get(type);
    }

    /** The tensor-core precision that math on this type runs at, or null (fp32 and wider: no peak here). */
    public static Precision ofType(String type) {
        if (type == null) {
            return null;
        }
        return switch (type) {
            case "c10::BFloat16" -> BF16;
            case "c10::Half" -> FP16;
            case "signed char" -> INT8;
            default -> type.startsWith("c10::Float8_") ? FP8 : null;
        };
    }

    /** By its id ({@code bf16}...), or null. */
    public static Precision ofId(String id) {
        for (Precision p : values()) {
            if (p.id.equals(id)) {
                return p;
            }
        }
        return null;
    }
}
