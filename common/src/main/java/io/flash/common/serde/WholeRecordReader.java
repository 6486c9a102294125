package io.flash.common.serde;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;

import java.io.IOException;

/**
 * A datum reader that insists the record is the whole value: bytes left after the end of the Avro
 * body mean the value is not what the writer schema says (a truncated schema id, two records glued
 * together, garbage appended), and silently reading a prefix of it would accept a record nobody wrote.
 */
final class WholeRecordReader<T> implements DatumReader<T> {

    private final DatumReader<T> delegate;

    WholeRecordReader(DatumReader<T> delegate) {
        this.delegate = delegate;
    }

    @Override
    public void setSchema(Schema schema) {
        delegate.setSchema(schema);
    }

    @Override
    public T read(T reuse, Decoder in) throws IOException {
        T value = delegate.read(reuse, in);
        if (in instanceof BinaryDecoder binary && !binary.isEnd()) {
            throw new AvroRuntimeException("bytes follow the end of the Avro record: a value must hold exactly one record "
                    + "in the writer's schema, with nothing after it");
        }
        return value;
    }
}
