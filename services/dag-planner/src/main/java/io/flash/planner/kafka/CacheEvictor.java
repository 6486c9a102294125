package io.flash.planner.kafka;

import io.flash.planner.core.cache.ResultCache;
import io.flash.schema.CacheEntry;
import io.flash.schema.OutputFile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the task-result cache's index within the platform's bounds (docs/caching.md, "Eviction"):
 * follows its partition of flash.cache.entries into a store and, every round, writes a tombstone
 * for each entry {@link ResultCache#evict} drops — past the age bound, then the least recently
 * made past the entry or byte bound of the partition.
 */
final class CacheEvictor implements Processor<String, CacheEntry, String, CacheEntry> {

    private final ResultCache.Limits limits;
    private final Duration every;
    private ProcessorContext<String, CacheEntry> context;
    private KeyValueStore<String, CacheEntry> entries;

    CacheEvictor(ResultCache.Limits limits, Duration every) {
        this.limits = limits;
        this.every = every;
    }

    @Override
    public void init(ProcessorContext<String, CacheEntry> context) {
        this.context = context;
        this.entries = context.getStateStore(PlannerTopology.CACHE_INDEX_STORE);
        context.schedule(every, PunctuationType.WALL_CLOCK_TIME, this::evict);
    }

    @Override
    public void process(Record<String, CacheEntry> record) {
        if (record.key() == null) return;
        if (record.value() == null) entries.delete(record.key());
        else entries.put(record.key(), record.value());
    }

    private void evict(long now) {
        for (String id : new ResultCache(new StoreIndex(entries)).evict(limits, now)) {
            context.forward(new Record<>(id, null, now));
        }
    }

    /** The store as the cache's index; the evictor only lists and removes. */
    private record StoreIndex(KeyValueStore<String, CacheEntry> store) implements ResultCache.Index {
        @Override
        public Optional<ResultCache.Entry> get(String id) {
            return Optional.ofNullable(store.get(id)).map(StoreIndex::entry);
        }

        @Override
        public void put(ResultCache.Entry entry) {
            throw new UnsupportedOperationException("the evictor only removes; entries are the planner's to write");
        }

        @Override
        public void remove(String id) {
            store.delete(id);
        }

        @Override
        public List<ResultCache.Entry> all() {
            List<ResultCache.Entry> all = new ArrayList<>();
            try (KeyValueIterator<String, CacheEntry> it = store.all()) {
                while (it.hasNext()) {
                    KeyValue<String, CacheEntry> next = it.next();
                    if (next.value != null) all.add(entry(next.value));
                }
            }
            return all;
        }

        private static ResultCache.Entry entry(CacheEntry e) {
            List<ResultCache.Output> outputs = new ArrayList<>();
            for (OutputFile o : e.getOutputs()) outputs.add(new ResultCache.Output(o.getPath(), o.getSizeBytes(), o.getSha256()));
            return new ResultCache.Entry(e.getScope(), e.getCacheKey(), e.getJobId(), e.getAttemptId(), e.getCreatedAt(), e.getLastUsedAt(),
                    outputs);
        }
    }
}
