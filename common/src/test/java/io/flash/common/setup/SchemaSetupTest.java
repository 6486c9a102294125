package io.flash.common.setup;

import io.flash.common.topics.TopicCatalog;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What the secure mode's setup registers: every record a topic or a state store holds. */
class SchemaSetupTest {

    @Test
    void everyRecordOfTheSchemasModuleIsFoundIncludingTheStoresOwn() throws Exception {
        List<Class<?>> records = SchemaSetup.records();
        for (TopicCatalog.Kind<?> kind : TopicCatalog.PLATFORM) {
            if (kind.valueType() != byte[].class) assertTrue(records.contains(kind.valueType()), kind.valueType().getName());
        }
        // Held only in state stores, never on a catalogue topic:
        assertTrue(records.contains(io.flash.schema.NodeRecord.class));
        assertTrue(records.contains(io.flash.schema.DelayedAttempt.class));
        assertTrue(records.stream().noneMatch(c -> c.isEnum() || c.getName().contains("$")), "records only: " + records);
    }
}
