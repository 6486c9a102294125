package io.flash.dispatcher.core;

import io.flash.common.events.HoldReasons;
import io.flash.dispatcher.core.selection.Requirement;
import io.flash.schema.HeldTask;

import java.util.*;

/**
 * The attempts the dispatcher holds, grouped by what they ask for ({@link Requirement}), each group
 * in the order its members leave: priority, then time held, then attempt id. Within one round an
 * attempt equal to one just held would be held for the same reason, so a round decides for the
 * first member of each group and goes on in a group only while its members leave: a round over
 * 100,000 held shards of a few scatters reads a few attempts, not 100,000. In memory beside the
 * held store, which stays the truth: the dispatcher fills it from the store once after it starts.
 */
final class HeldQueue {

    /** One held attempt: its group, where it stands in the leaving order, and its reason in words. */
    record Entry(Requirement group, int priority, long heldSince, String attemptId, String reasonInWords) {
    }

    static final Comparator<Entry> LEAVING_ORDER = Comparator.comparingInt((Entry e) -> -e.priority())
            .thenComparingLong(Entry::heldSince).thenComparing(Entry::attemptId);

    private static final class Group {
        final TreeSet<Entry> members = new TreeSet<>(LEAVING_ORDER);
        /** How many members have each reason in words: one key means all were told the same. */
        final Map<String, Integer> reasons = new HashMap<>();
    }

    private final Map<Requirement, Group> groups = new HashMap<>();
    private final Map<String, Entry> byAttempt = new HashMap<>();

    /** Holds the attempt (again, if it was: its reason or place may have changed). */
    void add(String attemptId, HeldTask held) {
        remove(attemptId);
        Requirement requirement = Requirement.of(held.getReady());
        Group group = groups.computeIfAbsent(requirement, r -> new Group());
        // One Requirement instance per group, however many members refer to it.
        Requirement key = group.members.isEmpty() ? requirement : group.members.first().group();
        Entry entry = new Entry(key, held.getReady().getPriority(), held.getHeldSince(), attemptId,
                HoldReasons.inWords(held.getReason()));
        group.members.add(entry);
        group.reasons.merge(String.valueOf(entry.reasonInWords()), 1, Integer::sum);
        byAttempt.put(attemptId, entry);
    }

    void remove(String attemptId) {
        Entry entry = byAttempt.remove(attemptId);
        if (entry == null) return;
        Group group = groups.get(entry.group());
        group.members.remove(entry);
        group.reasons.computeIfPresent(String.valueOf(entry.reasonInWords()), (k, n) -> n == 1 ? null : n - 1);
        if (group.members.isEmpty()) groups.remove(entry.group());
    }

    int size() {
        return byAttempt.size();
    }

    /** The first member of every group, in leaving order. */
    PriorityQueue<Entry> heads() {
        PriorityQueue<Entry> heads = new PriorityQueue<>(LEAVING_ORDER);
        groups.values().forEach(g -> heads.add(g.members.first()));
        return heads;
    }

    /** The member of {@code entry}'s group that leaves after it (whether or not it is still held), or null. */
    Entry after(Entry entry) {
        Group group = groups.get(entry.group());
        return group == null ? null : group.members.higher(entry);
    }

    /** Whether every member of the group has been told this reason (in words). */
    boolean allTold(Requirement group, String reason) {
        Group g = groups.get(group);
        return g == null || g.reasons.size() == 1 && g.reasons.containsKey(String.valueOf(HoldReasons.inWords(reason)));
    }

    /** The group's members that have not been told this reason (in words). */
    List<String> notTold(Requirement group, String reason) {
        Group g = groups.get(group);
        if (g == null) return List.of();
        String words = HoldReasons.inWords(reason);
        return g.members.stream().filter(e -> !Objects.equals(e.reasonInWords(), words)).map(Entry::attemptId).toList();
    }
}
