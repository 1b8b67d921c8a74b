package dev.steptrace.store;

/** The store cannot be opened or used; the message is meant for the user as it is. */
public final class StoreException extends Exception {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
