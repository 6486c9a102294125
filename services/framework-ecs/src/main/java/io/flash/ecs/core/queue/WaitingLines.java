package io.flash.ecs.core.queue;

import io.flash.ecs.core.placement.Requirement;
import io.flash.schema.TaskDispatch;

import java.util.*;

/**
 * A shard's waiting attempts as fair share walks them: by priority, then by owner, then in groups of
 * equal {@link Requirement}, each group first come first served. Kept in step with every enqueue and
 * dequeue, so a scheduling pass neither copies nor sorts the queue, and can pass over a whole group
 * that fits nowhere in one step (100,000 waiting shards of one scatter are one group, not 100,000
 * candidates per pass).
 */
public final class WaitingLines {

    /** Arrival order: when dispatched, then in the order added (a restart adds in the store's order). */
    record Arrival(long dispatchedAt, long sequence) implements Comparable<Arrival> {
        @Override
        public int compareTo(Arrival other) {
            int byTime = Long.compare(dispatchedAt, other.dispatchedAt);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /**
     * The waiting attempts of one owner with one requirement, and what they have been told about
     * why they wait: the last reason given to the whole group and the members that joined since.
     */
    public static final class Group {
        private final String owner;
        private final Requirement requirement;
        final TreeMap<Arrival, TaskDispatch> members = new TreeMap<>();
        private String toldReason;
        private long toldInVersion;
        private final Set<String> untold = new LinkedHashSet<>();

        private Group(String owner, Requirement requirement) {
            this.owner = owner;
            this.requirement = requirement;
        }

        public Requirement requirement() {
            return requirement;
        }

        public String owner() {
            return owner;
        }

        public Collection<TaskDispatch> members() {
            return Collections.unmodifiableCollection(members.values());
        }

        /**
         * Whether every member has been told why it waits since the nodes last changed ({@code
         * nodesVersion}, as counted by the caller): a reason told before a node came, went or
         * changed may no longer be the reason.
         */
        public boolean allTold(long nodesVersion) {
            return toldReason != null && untold.isEmpty() && toldInVersion == nodesVersion;
        }

        public String toldReason() {
            return toldReason;
        }

        /** Members that joined since the group was last told a reason (all of them before the first). */
        public Collection<String> untold() {
            return Collections.unmodifiableSet(untold);
        }

        /** The member was told something else than the group's reason. */
        public void toldApart(String attemptId) {
            untold.add(attemptId);
        }

        /** Every member has now been told {@code reason}, with the nodes as of {@code nodesVersion}. */
        public void told(String reason, long nodesVersion) {
            toldReason = reason;
            toldInVersion = nodesVersion;
            untold.clear();
        }
    }

    private final TreeMap<Integer, Map<String, Map<Requirement, Group>>> byPriority = new TreeMap<>(Comparator.reverseOrder());
    /** Where each waiting attempt is: its group and its place in the group's line. */
    private record Place(Group group, Arrival arrival) {
    }

    private final Map<String, Place> places = new HashMap<>();
    private long sequence;

    public static WaitingLines of(Collection<TaskDispatch> waiting) {
        WaitingLines lines = new WaitingLines();
        waiting.forEach(lines::add);
        return lines;
    }

    public void add(TaskDispatch dispatch) {
        String attemptId = dispatch.getReady().getAttemptId();
        remove(attemptId);
        Requirement requirement = Requirement.of(dispatch.getReady());
        String owner = dispatch.getReady().getOwner();
        Group group = byPriority.computeIfAbsent(requirement.priority(), p -> new HashMap<>())
                .computeIfAbsent(owner, o -> new HashMap<>())
                .computeIfAbsent(requirement, r -> new Group(owner, r));
        Arrival arrival = new Arrival(dispatch.getDispatchedAt(), sequence++);
        group.members.put(arrival, dispatch);
        group.untold.add(attemptId);
        places.put(attemptId, new Place(group, arrival));
    }

    public void remove(String attemptId) {
        Place place = places.remove(attemptId);
        if (place == null) return;
        Group group = place.group();
        group.members.remove(place.arrival());
        group.untold.remove(attemptId);
        if (!group.members.isEmpty()) return;
        Map<String, Map<Requirement, Group>> owners = byPriority.get(group.requirement.priority());
        Map<Requirement, Group> groups = owners.get(group.owner);
        groups.remove(group.requirement);
        if (groups.isEmpty()) owners.remove(group.owner);
        if (owners.isEmpty()) byPriority.remove(group.requirement.priority());
    }

    /** The group the waiting attempt is in, or null when it does not wait here. */
    public Group groupOf(String attemptId) {
        Place place = places.get(attemptId);
        return place == null ? null : place.group();
    }

    /** The waiting attempt, or null when it does not wait here. */
    public TaskDispatch get(String attemptId) {
        Place place = places.get(attemptId);
        return place == null ? null : place.group().members.get(place.arrival());
    }

    public boolean isEmpty() {
        return places.isEmpty();
    }

    public int size() {
        return places.size();
    }

    /** Every waiting attempt, by priority, owner and group (no particular order between owners). */
    public Collection<TaskDispatch> all() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<TaskDispatch> iterator() {
                return byPriority.values().stream().flatMap(owners -> owners.values().stream())
                        .flatMap(groups -> groups.values().stream())
                        .flatMap(group -> group.members.values().stream()).iterator();
            }

            @Override
            public int size() {
                return places.size();
            }
        };
    }

    /** Priorities, highest first, each with its owners' groups. */
    Collection<Map<String, Map<Requirement, Group>>> byPriority() {
        return byPriority.values();
    }
}
