package io.flash.ingest.core;

import io.flash.schema.JobSubmission;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;

/** How many bytes a submission is on {@code flash.jobs.submitted}: what ingest's size limit counts. */
public final class SpecBytes {

    /** The registry's wire format: magic byte 0 and a 4-byte schema id before the Avro body. */
    static final int WIRE_HEADER = 5;

    private SpecBytes() {
    }

    public static int onTheTopic(JobSubmission submission) {
        Counting counted = new Counting();
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(counted, null);
            new SpecificDatumWriter<>(JobSubmission.class).write(submission, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("counting never fails to write", e);
        }
        return (int) Math.min(Integer.MAX_VALUE, WIRE_HEADER + counted.bytes);
    }

    private static final class Counting extends OutputStream {
        private long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
