package io.flash.ingest.view;

import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * A finished job's units, no longer expected to change, kept as their Avro encoding in one array in
 * page order and decoded when read: a decoded summary is an object graph of strings and boxes several
 * times its encoded size, and a finished 100,000-shard job is read far less often than it is held.
 * Immutable, so readers on any thread need no lock.
 */
final class PackedUnits {

    private static final SpecificDatumWriter<TaskSummary> WRITER = new SpecificDatumWriter<>(TaskSummary.class);
    private static final SpecificDatumReader<TaskSummary> READER = new SpecificDatumReader<>(TaskSummary.class);

    private final byte[] encoded;
    /** Where unit i starts; unit i ends where unit i + 1 starts, the last at the array's end. */
    private final int[] starts;
    private final Map<TaskState, Integer> countByState;

    private PackedUnits(byte[] encoded, int[] starts, Map<TaskState, Integer> countByState) {
        this.encoded = encoded;
        this.starts = starts;
        this.countByState = countByState;
    }

    /** The units in the order given, which is the order they are read back in. */
    static PackedUnits of(Collection<TaskSummary> units) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(units.size() * 128);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        int[] starts = new int[units.size()];
        Map<TaskState, Integer> counts = new EnumMap<>(TaskState.class);
        int i = 0;
        try {
            for (TaskSummary unit : units) {
                starts[i++] = out.size();
                WRITER.write(unit, encoder);
                counts.merge(unit.getState(), 1, Integer::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a unit summary would not encode", e);
        }
        return new PackedUnits(out.toByteArray(), starts, counts);
    }

    int size() {
        return starts.length;
    }

    /** How many units are in each state, for the view's counts when these are dropped. */
    Map<TaskState, Integer> countByState() {
        return countByState;
    }

    /** Units {@code from} (inclusive) to {@code to} (exclusive), decoded. */
    List<TaskSummary> range(int from, int to) {
        List<TaskSummary> out = new ArrayList<>(Math.max(0, to - from));
        BinaryDecoder decoder = null;
        for (int i = from; i < to; i++) {
            int end = i + 1 < starts.length ? starts[i + 1] : encoded.length;
            decoder = DecoderFactory.get().binaryDecoder(encoded, starts[i], end - starts[i], decoder);
            try {
                out.add(READER.read(null, decoder));
            } catch (IOException e) {
                throw new UncheckedIOException("a packed unit summary would not decode", e);
            }
        }
        return out;
    }
}
