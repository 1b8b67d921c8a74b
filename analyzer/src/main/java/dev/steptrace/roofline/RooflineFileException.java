package dev.steptrace.roofline;

import dev.steptrace.common.InputException;

/** A device-peaks or model file that cannot be used: the message names the file and what is wrong. */
public final class RooflineFileException extends InputException {
    public RooflineFileException(String message) {
        super(message);
    }

    public RooflineFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
