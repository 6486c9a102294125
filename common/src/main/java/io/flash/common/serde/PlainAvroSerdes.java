package io.flash.common.serde;

import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Avro binary without a registry, for {@code TopologyTestDriver} tests, where the topology logic is
 * under test and the registry is not. Never used against a broker.
 */
public final class PlainAvroSerdes implements ValueSerdes {

    @Override
    public <V extends SpecificRecord> Serde<V> forValue(Class<V> type) {
        SpecificDatumWriter<V> writer = new SpecificDatumWriter<>(type);
        SpecificDatumReader<V> reader = new SpecificDatumReader<>(type);
        return Serdes.serdeFrom(
                (topic, value) -> {
                    if (value == null) return null;
                    try {
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
                        writer.write(value, encoder);
                        encoder.flush();
                        return out.toByteArray();
                    } catch (IOException e) {
                        throw new SerializationException(e);
                    }
                },
                (topic, bytes) -> {
                    if (bytes == null) return null;
                    try {
                        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
                        return reader.read(null, decoder);
                    } catch (IOException e) {
                        throw new SerializationException(e);
                    }
                });
    }
}
