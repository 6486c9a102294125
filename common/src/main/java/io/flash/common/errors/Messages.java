package io.flash.common.errors;

/** An exception in words for a log line or a reason: its own message, trimmed, or its type when it has none. */
public final class Messages {

    private Messages() {
    }

    public static String of(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m.strip();
    }
}
