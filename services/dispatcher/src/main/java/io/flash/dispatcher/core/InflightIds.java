package io.flash.dispatcher.core;

import java.util.HashSet;
import java.util.Set;

/**
 * The ids of the attempts in flight (sent to a shard, not yet placed), in memory beside the
 * in-flight store, which stays the truth: filled from it once after the dispatcher starts, then
 * changed with it. Every report of an attempt asks whether it is still in flight, and most ask
 * after it has landed; reading the store for that deserialised the whole dispatch of each one still
 * there (5 % of the dispatcher's samples at 100,000 queued shards). Small: a shard accepts at most
 * its accept limit of unplaced attempts.
 */
final class InflightIds {

    private final DispatchStore store;
    private final Set<String> ids = new HashSet<>();
    private boolean loaded;

    InflightIds(DispatchStore store) {
        this.store = store;
    }

    void sent(String attemptId) {
        load();
        ids.add(attemptId);
    }

    /** @return whether the attempt was in flight; deleted from the store only then (a tombstone is a changelog record) */
    boolean landed(String attemptId) {
        load();
        if (!ids.remove(attemptId)) return false;
        store.inflightTasks().delete(attemptId);
        return true;
    }

    private void load() {
        if (loaded) return;
        store.inflightTasks().forEach((attemptId, dispatch) -> ids.add(attemptId));
        loaded = true;
    }
}
