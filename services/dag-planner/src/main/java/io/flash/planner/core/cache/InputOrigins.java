package io.flash.planner.core.cache;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which upstream task made each input of a task, so the input's cache identity is that task's key
 * and the path (docs/caching.md: a Merkle chain) rather than a hash of the file. The task that made
 * it is the nearest ancestor declaring the path as an output: one that every other such ancestor
 * precedes, since it wrote last. Two that neither precedes (parallel branches writing one path)
 * leave the file's content to decide, as does an input no ancestor declares (a job file's, a
 * fetched one).
 */
public final class InputOrigins {

    /** What of a task decides where its inputs come from. */
    public record Step(List<String> dependsOn, List<String> outputs) {
    }

    private final Map<String, Step> byName;
    /** Each task's ancestors, walked once: every input of every unit asks for them. */
    private final Map<String, Set<String>> ancestorsOf = new HashMap<>();

    /** @param steps every task of the job by name */
    public InputOrigins(Map<String, Step> steps) {
        this.byName = steps;
    }

    /** The task whose output the input is, or empty when its content must be hashed. */
    public Optional<String> madeBy(String taskName, String input) {
        Set<String> writers = new HashSet<>();
        for (String ancestor : ancestors(taskName)) {
            if (byName.get(ancestor).outputs().contains(input)) writers.add(ancestor);
        }
        for (String candidate : writers) {
            Set<String> before = ancestors(candidate);
            if (writers.stream().allMatch(w -> w.equals(candidate) || before.contains(w))) return Optional.of(candidate);
        }
        return Optional.empty();
    }

    /** Every task the named one depends on, directly or not. */
    Set<String> ancestors(String taskName) {
        return ancestorsOf.computeIfAbsent(taskName, this::walkAncestors);
    }

    private Set<String> walkAncestors(String taskName) {
        Set<String> seen = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>(byName.get(taskName).dependsOn());
        while (!todo.isEmpty()) {
            String next = todo.pop();
            if (seen.add(next)) todo.addAll(byName.get(next).dependsOn());
        }
        return seen;
    }
}
