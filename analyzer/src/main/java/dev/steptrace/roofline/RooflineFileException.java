package dev.steptrace.roofline;

/** A device-peaks or model file that cannot be used: the message names the file and what is wrong. */
public final class RooflineFileException extends RuntimeException {
    public RooflineFileException(String message) {
        super(message);
    }

    public RooflineFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
