package io.flash.common.errors;

/** What went wrong at the bottom of an exception's causes, in words short enough for a rejection or a dead letter. */
public final class RootCause {

    private RootCause() {
    }

    /** The innermost cause's message (its type when it has none), at most 300 characters. */
    public static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().strip();
        return message.length() > 300 ? message.substring(0, 300) + "…" : message;
    }
}
