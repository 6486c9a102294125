package io.flash.planner.core.cache;

import io.flash.planner.core.cache.ResultCache.Answer;
import io.flash.planner.core.cache.ResultCache.Entry;
import io.flash.planner.core.cache.ResultCache.Limits;
import io.flash.planner.core.cache.ResultCache.Output;
import io.flash.planner.core.cache.ResultCache.Sharing;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultCacheTest {

    private static final long HOUR = 3_600_000L, DAY = 24 * HOUR;

    /** The index as a map, as the planner's state store would hold it. */
    private final Map<String, Entry> stored = new TreeMap<>();
    private final ResultCache cache = new ResultCache(new ResultCache.Index() {
        public Optional<Entry> get(String id) {
            return Optional.ofNullable(stored.get(id));
        }

        public void put(Entry entry) {
            stored.put(entry.id(), entry);
        }

        public void remove(String id) {
            stored.remove(id);
        }

        public List<Entry> all() {
            return new ArrayList<>(stored.values());
        }
    });

    private static Entry entry(String scope, String key, String attempt, long at, long bytes) {
        return new Entry(scope, key, "job-1", attempt, at, at, List.of(new Output("out.sam", bytes, "sha256:aa")));
    }

    @Test
    void aRecordedResultIsAHitInItsScopeAndAMissInAnother() {
        String alice = ResultCache.scope(Sharing.OWNER, "alice", "genomics");
        String bob = ResultCache.scope(Sharing.OWNER, "bob", "genomics");
        cache.record(entry(alice, "v1:k", "job-1.align.1", 0, 100));
        Answer mine = cache.lookup(alice, "v1:k", null, HOUR);
        assertEquals("job-1.align.1", assertInstanceOf(Answer.Hit.class, mine).entry().attemptId());
        assertEquals(HOUR, ((Answer.Hit) mine).entry().lastUsedAt(), "a hit counts as a use");
        assertInstanceOf(Answer.Miss.class, cache.lookup(bob, "v1:k", null, HOUR), "another owner's result");
        assertInstanceOf(Answer.Miss.class, cache.lookup(alice, "v1:other", null, HOUR));
    }

    @Test
    void scopesWidenOnlyAsAnAdminSets() {
        assertNotEquals(ResultCache.scope(Sharing.OWNER, "alice", "q"), ResultCache.scope(Sharing.OWNER, "bob", "q"));
        assertEquals(ResultCache.scope(Sharing.QUEUE, "alice", "q"), ResultCache.scope(Sharing.QUEUE, "bob", "q"));
        assertNotEquals(ResultCache.scope(Sharing.QUEUE, "alice", "q"), ResultCache.scope(Sharing.QUEUE, "alice", "r"));
        assertEquals(ResultCache.scope(Sharing.PLATFORM, "alice", "q"), ResultCache.scope(Sharing.PLATFORM, "bob", "r"));
    }

    @Test
    void aResultOlderThanAJobsMaxAgeIsAMissForThatJobAndStaysForOthers() {
        String scope = ResultCache.scope(Sharing.OWNER, "alice", null);
        cache.record(entry(scope, "v1:k", "a1", 0, 100));
        Answer miss = cache.lookup(scope, "v1:k", 2 * DAY, 3 * DAY);
        assertTrue(assertInstanceOf(Answer.Miss.class, miss).why().contains("maxAge"), miss.toString());
        assertInstanceOf(Answer.Hit.class, cache.lookup(scope, "v1:k", 7 * DAY, 3 * DAY));
        assertInstanceOf(Answer.Hit.class, cache.lookup(scope, "v1:k", null, 3 * DAY));
    }

    @Test
    void aFailedVerificationDropsTheEntryUnlessANewerSuccessReplacedIt() {
        String scope = ResultCache.scope(Sharing.OWNER, "alice", null);
        cache.record(entry(scope, "v1:k", "a1", 0, 100));
        cache.record(entry(scope, "v1:k", "a2", 10, 100)); // the same unit run again: the newest is kept
        cache.invalid(scope, "v1:k", "a1");
        assertEquals("a2", assertInstanceOf(Answer.Hit.class, cache.lookup(scope, "v1:k", null, 20)).entry().attemptId());
        cache.invalid(scope, "v1:k", "a2");
        assertInstanceOf(Answer.Miss.class, cache.lookup(scope, "v1:k", null, 30));
    }

    @Test
    void evictionDropsWhatIsPastThePlatformsAgeThenTheLeastRecentlyUsedPastEitherBound() {
        String s = ResultCache.scope(Sharing.PLATFORM, null, null);
        cache.record(entry(s, "v1:ancient", "a0", 0, 10));
        cache.record(entry(s, "v1:a", "a1", 40 * DAY, 400));
        cache.record(entry(s, "v1:b", "a2", 41 * DAY, 400));
        cache.record(entry(s, "v1:c", "a3", 42 * DAY, 400));
        cache.lookup(s, "v1:a", null, 43 * DAY); // a, the oldest, was used last: b goes first
        List<String> dropped = cache.evict(new Limits(30 * DAY, 900, 100), 44 * DAY);
        assertEquals(List.of(ResultCache.id(s, "v1:ancient"), ResultCache.id(s, "v1:b")), dropped);
        assertEquals(2, stored.size());
        assertEquals(List.of(ResultCache.id(s, "v1:c")), cache.evict(new Limits(30 * DAY, 10_000, 1), 44 * DAY), "past the count bound");
        assertEquals(List.of(), cache.evict(new Limits(30 * DAY, 10_000, 1), 44 * DAY), "nothing more to drop");
    }
}
