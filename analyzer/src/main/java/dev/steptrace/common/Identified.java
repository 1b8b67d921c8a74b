package dev.steptrace.common;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * An enum whose id is its constant's name in lower case ({@code NO_SIGNIFICANT_CHANGE} → {@code
 * no_significant_change}): what the store's columns and the JSON outputs hold. With a label: {@link Labelled}.
 */
public interface Identified {
    /** The constant's name; every enum has it. */
    String name();

    /** The id, as JSON writes the constant. */
    @JsonValue
    default String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant of {@code type} whose id is {@code id}, if any. */
    static <E extends Enum<E> & Identified> Optional<E> byId(Class<E> type, String id) {
        return Arrays.stream(type.getEnumConstants()).filter(e -> e.id().equals(id)).findFirst();
    }
}
