package io.flash.common.serde;

import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSpec;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.SystemLimitException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;

import static io.flash.common.testing.AvroBytes.concat;
import static io.flash.common.testing.AvroBytes.varint;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Records that claim huge sizes, or carry more than one record, fail to decode without allocating. */
class SafeReadingTest {

    private final DatumReader<Object> reader = new CachingAvroDatumProvider<>().createDatumReader(JobSubmission.SCHEMA$);

    @Test
    void aStringClaimingTwoGigabytesIsRefusedBeforeItIsAllocated() {
        // submissionId: union branch 1 (string), then a length of 2^31-9 in five bytes
        Throwable e = assertThrows(Throwable.class, () -> read(concat(varint(1), varint(Integer.MAX_VALUE - 8L))));
        assertInstanceOf(SystemLimitException.class, e, () -> "expected Avro's limit, got " + e);
    }

    @Test
    void anArrayClaimingAHundredMillionTasksIsRefusedBeforeItIsAllocated() {
        // null id, name "x", null owner and queue, priority 0, no labels, null failureMode and store, then the tasks count
        byte[] prefix = concat(varint(0), varint(1), new byte[]{'x'}, varint(0), varint(0), varint(0), varint(0), varint(0), varint(0));
        for (long count : new long[]{100_000_000L, Integer.MAX_VALUE - 8L}) {
            Throwable e = assertThrows(Throwable.class, () -> read(concat(prefix, varint(count))));
            assertInstanceOf(SystemLimitException.class, e, () -> count + " tasks: expected Avro's limit, got " + e);
        }
    }

    @Test
    void aValidRecordIsReadAndTheSameRecordWithATrailingByteIsNot() throws Exception {
        JobSubmission job = JobSubmission.newBuilder().setName("ok").setTasks(List.of(TaskSpec.newBuilder().setName("t")
                .setImage("flash/shell:1").setShell("true").build())).build();
        byte[] body = write(job);
        assertEquals(job.toString(), read(body).toString());
        AvroRuntimeException e = assertThrows(AvroRuntimeException.class, () -> read(concat(body, new byte[]{0})));
        assertTrue(e.getMessage().contains("bytes follow the end of the Avro record"), e.getMessage());
    }

    @Test
    void limitsAreTheDocumentedOnes() {
        assertEquals(Integer.toString(AvroLimits.DEFAULT_MAX_LENGTH), System.getProperty(SystemLimitException.MAX_STRING_LENGTH_PROPERTY));
        assertThrows(SystemLimitException.class, () -> SystemLimitException.checkMaxStringLength(AvroLimits.DEFAULT_MAX_LENGTH + 1L));
        assertEquals(AvroLimits.DEFAULT_MAX_LENGTH, SystemLimitException.checkMaxCollectionLength(AvroLimits.DEFAULT_MAX_LENGTH));
    }

    private Object read(byte[] body) throws Exception {
        return reader.read(null, DecoderFactory.get().binaryDecoder(body, 0, body.length, null));
    }

    private static byte[] write(JobSubmission job) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(JobSubmission.class).write(job, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
