package io.flash.ecs.core.preemption;

import io.flash.ecs.core.placement.BinPacker;
import io.flash.common.resources.Resources;
import io.flash.ecs.core.queue.Holdings;
import io.flash.schema.Capacity;
import io.flash.schema.NodeRecord;
import io.flash.schema.TaskDefinition;

import java.util.*;

/**
 * Finds room for a task that fits no node's free capacity by stopping lower-priority attempts:
 * on each node that could ever take the task, the lowest priority and then the most recently
 * placed attempts (least work lost) are chosen until the task fits; the node needing the fewest
 * victims wins. Attempts already being stopped count as room about to free up, so a waiting task
 * never causes a second round of kills for the same room.
 */
public final class Preemptor {

    /** Room for the task on {@code nodeId} once {@code victims} stop (empty: room is already being freed). */
    public record Plan(String nodeId, List<Holdings.Held> victims) {
    }

    public Optional<Plan> plan(TaskDefinition task, int priority, Collection<NodeRecord> nodes, Holdings holdings) {
        // Nothing to stop and nothing being stopped: no node gains room, so none is looked at (a
        // queue of equal priorities would otherwise scan every node at each failed placement).
        if (!holdings.anyBelow(priority) && !holdings.anyPreempting()) return Optional.empty();
        Plan best = null;
        for (NodeRecord node : nodes) {
            if (!BinPacker.couldEverTake(task, node)) continue;
            Capacity free = Resources.minus(node.getHeartbeat().getTotal(), node.getAllocated());
            List<Holdings.Held> candidates = new ArrayList<>();
            for (Holdings.Held held : holdings.onNode(node.getHeartbeat().getNodeId())) {
                if (held.preempting()) free = Resources.plus(free, held.resources());
                else if (held.priority() < priority) candidates.add(held);
            }
            candidates.sort(Comparator.comparingInt(Holdings.Held::priority)
                    .thenComparing(Comparator.comparingLong(Holdings.Held::placedAt).reversed()));
            List<Holdings.Held> victims = new ArrayList<>();
            for (Iterator<Holdings.Held> it = candidates.iterator(); !Resources.fits(task.getResources(), free) && it.hasNext(); ) {
                Holdings.Held victim = it.next();
                victims.add(victim);
                free = Resources.plus(free, victim.resources());
            }
            if (!Resources.fits(task.getResources(), free)) continue;
            if (best == null || victims.size() < best.victims().size()) {
                best = new Plan(node.getHeartbeat().getNodeId(), victims);
            }
        }
        return Optional.ofNullable(best);
    }
}
