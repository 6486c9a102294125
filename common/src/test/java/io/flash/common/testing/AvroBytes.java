package io.flash.common.testing;

import java.io.ByteArrayOutputStream;

/** Hand-made Avro binary, for tests that feed decoders what no serializer would write. */
public final class AvroBytes {

    private AvroBytes() {
    }

    /** Avro's zig-zag varint of a long (lengths, counts, union branches). */
    public static byte[] varint(long value) {
        long n = (value << 1) ^ (value >> 63);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((n & ~0x7FL) != 0) {
            out.write((int) ((n & 0x7F) | 0x80));
            n >>>= 7;
        }
        out.write((int) n);
        return out.toByteArray();
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
