package io.flash.common.serde;

import io.apicurio.registry.serde.avro.DefaultAvroDatumProvider;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificRecord;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Apicurio's datum provider with its reader and writer caches keyed by the schema itself instead of
 * its parsing fingerprint: the default computes the fingerprint (canonical form text + hash) for
 * every record it reads or writes, and that was a quarter of the dag-planner's CPU under load
 * (bench/run-control-plane.sh, JFR). A schema caches its hash code and compares to itself first,
 * so a lookup with the same schema object — a generated class's SCHEMA$, or the registry client's
 * cached parse — costs a map probe. Every Flash deserializer reads through this provider, so it is
 * also where reading is made safe: {@link AvroLimits} are in force before the first record is
 * read, and each reader accepts a value only when the record is all of it ({@link WholeRecordReader}).
 */
public final class CachingAvroDatumProvider<T> extends DefaultAvroDatumProvider<T> {

    static {
        AvroLimits.install();
    }

    private final Map<Schema, DatumWriter<T>> specificWriters = new ConcurrentHashMap<>();
    private final Map<Schema, DatumWriter<T>> genericWriters = new ConcurrentHashMap<>();
    private final Map<Schema, DatumReader<T>> readers = new ConcurrentHashMap<>();

    @Override
    public DatumWriter<T> createDatumWriter(T data, Schema schema) {
        Map<Schema, DatumWriter<T>> writers = data instanceof SpecificRecord ? specificWriters : genericWriters;
        DatumWriter<T> writer = writers.get(schema);
        if (writer == null) {
            writer = super.createDatumWriter(data, schema);
            writers.put(schema, writer);
        }
        return writer;
    }

    @Override
    public DatumReader<T> createDatumReader(Schema schema) {
        DatumReader<T> reader = readers.get(schema);
        if (reader == null) {
            reader = new WholeRecordReader<>(super.createDatumReader(schema));
            readers.put(schema, reader);
        }
        return reader;
    }
}
