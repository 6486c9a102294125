package io.flash.ingest.core.validation;

import io.flash.schema.TaskDefinition;
import java.util.*;

/** The dependency cycle of a job's tasks, if it has one: a DAG it must be. */
final class DependencyCycles {

    private DependencyCycles() {
    }

    /** A cycle as task names, first name repeated at the end, or empty. Iterative, so deep DAGs are fine. */
    static Optional<List<String>> find(List<TaskDefinition> tasks) {
        Map<String, List<String>> deps = new HashMap<>();
        for (TaskDefinition t : tasks) {
            deps.put(t.getName(), t.getDependsOn());
        }
        Map<String, Integer> color = new HashMap<>(); // 1 = on the current path, 2 = done
        for (TaskDefinition start : tasks) {
            if (color.containsKey(start.getName())) continue;
            Deque<String> path = new ArrayDeque<>();
            Deque<Iterator<String>> its = new ArrayDeque<>();
            path.push(start.getName());
            its.push(deps.getOrDefault(start.getName(), List.of()).iterator());
            color.put(start.getName(), 1);
            while (!path.isEmpty()) {
                Iterator<String> it = its.peek();
                if (it.hasNext()) {
                    String next = it.next();
                    Integer c = color.get(next);
                    if (c == null) {
                        color.put(next, 1);
                        path.push(next);
                        its.push(deps.getOrDefault(next, List.of()).iterator());
                    } else if (c == 1) {
                        List<String> onPath = new ArrayList<>(path);
                        Collections.reverse(onPath);
                        List<String> cycle = new ArrayList<>(onPath.subList(onPath.indexOf(next), onPath.size()));
                        cycle.add(next);
                        return Optional.of(cycle);
                    }
                } else {
                    color.put(path.pop(), 2);
                    its.pop();
                }
            }
        }
        return Optional.empty();
    }
}
