package io.flash.executor.cache;

import io.flash.schema.CacheEntry;
import io.flash.schema.OutputFile;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the task-result cache did on this node (docs/caching.md, "Metrics"): lookups by outcome,
 * the bytes a hit copied instead of computing, and the run time of the successes it stood in for.
 */
public final class CacheMeters {

    private final Counter hits, misses, unusable, bytesReused, secondsSaved;

    public CacheMeters(MeterRegistry meters) {
        hits = lookups(meters, "hit", "the key was in the index and every recorded output was there, unchanged");
        misses = lookups(meters, "miss", "no entry for the key in the unit's scope and age");
        unusable = lookups(meters, "unusable", "an entry whose outputs were gone or changed: the unit ran and the entry was dropped");
        bytesReused = Counter.builder("flash.executor.cache.reused").baseUnit("bytes")
                .description("bytes of outputs a hit copied from an earlier job instead of computing them").register(meters);
        secondsSaved = Counter.builder("flash.executor.cache.saved").baseUnit("seconds")
                .description("how long the successes the hits stood in for had run").register(meters);
    }

    private static Counter lookups(MeterRegistry meters, String result, String what) {
        return Counter.builder("flash.executor.cache.lookups").tag("result", result).description("cache lookups; " + result + ": " + what)
                .register(meters);
    }

    public void hit(CacheEntry entry) {
        hits.increment();
        bytesReused.increment(entry.getOutputs().stream().mapToLong(OutputFile::getSizeBytes).sum());
        if (entry.getRunSeconds() != null) secondsSaved.increment(entry.getRunSeconds());
    }

    public void miss() {
        misses.increment();
    }

    public void unusable() {
        unusable.increment();
    }
}
