package io.flash.common.events;

import io.flash.schema.AttemptEvent;
import io.flash.schema.AttemptState;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;

import java.util.*;
import java.util.stream.Collectors;

/**
 * What nodes really ran, from their own reports (the node-events topics, before any framework
 * relays or filters them): each attempt's span from STARTED to its end, grouped by unit. Two spans
 * of one unit that overlap mean two attempts ran at once and wrote the same workspace files.
 */
public final class AttemptTimeline {

    public record Span(String attemptId, String nodeId, long from, long to) {
    }

    private static final Set<TaskEventType> ENDS = EnumSet.of(TaskEventType.SUCCEEDED, TaskEventType.FAILED,
            TaskEventType.LOST, TaskEventType.CANCELLED);
    private final Map<String, List<Span>> byUnit = new TreeMap<>();
    private final Map<String, Long> successes = new TreeMap<>();

    public AttemptTimeline(Collection<AttemptEvent> events) {
        this(events, List.of());
    }

    /**
     * With the platform's own verdicts: an attempt whose node never reported its end (the node's
     * process died with it) ends when the platform declared it over (LOST, FAILED, ...): its retry
     * must not have started before that.
     */
    public AttemptTimeline(Collection<AttemptEvent> events, Collection<TaskEvent> verdicts) {
        Map<String, Long> declaredOver = new HashMap<>();
        for (TaskEvent v : verdicts) {
            if (ENDS.contains(v.getType())) declaredOver.merge(v.getAttemptId(), v.getAt(), Math::min);
        }
        Map<String, AttemptEvent> started = new HashMap<>();
        Map<String, AttemptEvent> ended = new HashMap<>();
        for (AttemptEvent e : events) {
            if (e.getState() == AttemptState.STARTED) started.putIfAbsent(e.getAttemptId(), e);
            else ended.putIfAbsent(e.getAttemptId(), e);
        }
        for (AttemptEvent s : started.values()) {
            AttemptEvent end = ended.get(s.getAttemptId());
            byUnit.computeIfAbsent(s.getTaskId(), k -> new ArrayList<>())
                    .add(new Span(s.getAttemptId(), s.getNodeId(), s.getAt(),
                            end != null ? end.getAt() : declaredOver.getOrDefault(s.getAttemptId(), Long.MAX_VALUE)));
        }
        successes.putAll(ended.values().stream().filter(e -> e.getState() == AttemptState.SUCCEEDED)
                .collect(Collectors.groupingBy(AttemptEvent::getTaskId, TreeMap::new, Collectors.counting())));
    }

    /** Units two of whose attempts ran at the same time, with the two spans. */
    public List<String> overlaps() {
        List<String> found = new ArrayList<>();
        byUnit.forEach((unit, spans) -> {
            spans.sort(Comparator.comparingLong(Span::from));
            for (int i = 1; i < spans.size(); i++) {
                if (spans.get(i).from() < spans.get(i - 1).to()) found.add(unit + ": " + spans.get(i - 1) + " and " + spans.get(i));
            }
        });
        return found;
    }

    /** Units that nodes report as succeeded more than once. */
    public Map<String, Long> doubleSuccesses() {
        return successes.entrySet().stream().filter(e -> e.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    public int attempts() {
        return byUnit.values().stream().mapToInt(List::size).sum();
    }
}
