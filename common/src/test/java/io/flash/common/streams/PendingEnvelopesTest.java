package io.flash.common.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The pending items against a real Kafka Streams store: what a commit would take is what was saved. */
class PendingEnvelopesTest {

    private KeyValueStore<String, String> store;

    @BeforeEach
    void setUp() {
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("outbox"), Serdes.String(), Serdes.String())
                .withLoggingDisabled().build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
    }

    private PendingEnvelopes<String, String> pending() {
        return new PendingEnvelopes<>(store, "ready", items -> String.join(",", items), packed -> Arrays.asList(packed.split(",")),
                item -> item.substring(0, 1), String::length, new Envelopes(40, 512 * 1024));
    }

    @Test
    void savedItemsAreSentByATaskThatStartsAgainInTheirOrder() {
        PendingEnvelopes<String, String> before = pending();
        before.add("a");
        before.add("b");
        before.save();
        before.add("c");
        before.save();
        PendingEnvelopes<String, String> after = pending(); // the task on another instance, or after a crash
        assertEquals(3, after.size());
        assertEquals(List.of(List.of("a", "b", "c")), after.drain());
        try (var all = store.all()) {
            assertFalse(all.hasNext(), "sent: nothing pending in the store");
        }
    }

    @Test
    void itemsAreStoredInSmallChunksSoARecordRewritesOnlyTheLast() {
        PendingEnvelopes<String, String> pending = pending();
        for (int i = 0; i < 40; i++) pending.add("x" + i);
        pending.save();
        assertEquals(PendingEnvelopes.CHUNK_ITEMS, store.get("ready/0").split(",").length);
        assertEquals(PendingEnvelopes.CHUNK_ITEMS, store.get("ready/1").split(",").length);
        assertEquals(40 - 2 * PendingEnvelopes.CHUNK_ITEMS, store.get("ready/2").split(",").length);
        PendingEnvelopes<String, String> restored = pending();
        restored.add("y");
        restored.save();
        assertEquals("y", store.get("ready/3"), "a restored chunk is kept as it was; new items open another");
        assertEquals(List.of(40, 1), restored.drain().stream().map(List::size).toList(), "envelopes of at most 40 items here");
    }

    @Test
    void aChunkStaysUnderHalfAMebibyte() {
        PendingEnvelopes<String, String> pending = pending();
        for (int i = 0; i < 3; i++) pending.add("b" + "x".repeat(200_000));
        pending.save();
        assertEquals(2, store.get("ready/0").split(",").length, "two items of 200 kB, not three");
        assertEquals(1, store.get("ready/1").split(",").length);
    }

    @Test
    void anItemNotYetSavedIsNotInTheStore() {
        PendingEnvelopes<String, String> pending = pending();
        pending.add("a");
        pending.save();
        pending.add("b");
        assertEquals("a", store.get("ready/0"), "a commit now would take only what was saved");
        assertEquals(List.of(List.of("a", "b")), pending.drain(), "the sending task sends all it holds");
        assertNull(store.get("ready/0"));
    }

    @Test
    void aDrainLeavesNothingAndTheNextItemsStartAfresh() {
        PendingEnvelopes<String, String> pending = pending();
        assertEquals(List.of(), pending.drain());
        pending.add("a");
        pending.save();
        assertEquals(List.of(List.of("a")), pending.drain());
        pending.add("b");
        pending.save();
        assertEquals("b", store.get("ready/0"), "the keys are used again after a flush");
        assertEquals(List.of(List.of("b")), pending().drain());
    }
}
