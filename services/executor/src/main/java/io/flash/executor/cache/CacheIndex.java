package io.flash.executor.cache;

import io.flash.schema.CacheEntry;

import java.util.Optional;

/** The task-result cache's index as this node reads it (docs/caching.md). */
public interface CacheIndex {

    /** An index with nothing in it: a node that reads none serves nothing from the cache. */
    CacheIndex EMPTY = (scope, key) -> Optional.empty();

    Optional<CacheEntry> get(String scope, String key);
}
