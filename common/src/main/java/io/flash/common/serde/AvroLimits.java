package io.flash.common.serde;

import org.apache.avro.SystemLimitException;

import java.lang.reflect.Method;

/**
 * Bounds what one Avro record can make a decoder allocate. Avro reads a length or item count from
 * the record and allocates that much before reading the data, so a 14-byte record claiming a string
 * of 2³¹−9 bytes (or an array of 10⁸ tasks) would exhaust the heap of whichever service reads it.
 * Avro's own limits ({@link SystemLimitException}'s system properties) are set here to
 * {@link #DEFAULT_MAX_LENGTH}: no record on a Flash topic can be larger, since the broker refuses
 * records over its {@code message.max.bytes} (1 MiB by default) and ingest refuses specs over
 * {@code flash.ingest.max-spec-bytes} (512 KiB). A limit an operator set with {@code -D} is kept.
 * A record over a limit fails to decode with a {@link SystemLimitException}, which the consumer
 * turns into a rejection or a dead letter.
 */
public final class AvroLimits {

    /** Longest string or bytes value, and most items in one array or map: 2 MiB. */
    public static final int DEFAULT_MAX_LENGTH = 2 << 20;

    private static volatile boolean installed;

    private AvroLimits() {
    }

    /** Idempotent; called before any Flash deserializer is made. */
    public static void install() {
        if (installed) return;
        synchronized (AvroLimits.class) {
            if (installed) return;
            for (String property : new String[]{SystemLimitException.MAX_STRING_LENGTH_PROPERTY,
                    SystemLimitException.MAX_BYTES_LENGTH_PROPERTY, SystemLimitException.MAX_COLLECTION_LENGTH_PROPERTY}) {
                if (System.getProperty(property) == null) {
                    System.setProperty(property, Integer.toString(DEFAULT_MAX_LENGTH));
                }
            }
            rereadLimits();
            installed = true;
        }
    }

    /**
     * Avro reads the properties once, when the class initialises; naming the class above has done
     * that already, so ask it to read them again (package-private since 1.11.3, hence reflection).
     */
    private static void rereadLimits() {
        try {
            Method reset = SystemLimitException.class.getDeclaredMethod("resetLimits");
            reset.setAccessible(true);
            reset.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("could not apply Avro's allocation limits (Avro version without "
                    + "SystemLimitException.resetLimits?): " + e, e);
        }
    }
}
