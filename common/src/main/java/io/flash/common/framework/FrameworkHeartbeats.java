package io.flash.common.framework;

import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.*;

/**
 * What a shard tells the dispatcher about itself every tick (docs/frameworks.md): its live places'
 * capacity and free room, the largest of each, their disk types, network and labels, its queue and
 * accept limit. A place is a node for framework-ecs, a partition or queue of a batch cluster.
 */
public final class FrameworkHeartbeats {

    /** One place the shard can run attempts on, as it is now. */
    public record Offer(Capacity total, Capacity free, DiskType diskType, boolean network, Map<String, String> labels) {
    }

    /**
     * How many attempt ids at the front of its queue a shard that orders its queue lists in its
     * heartbeat (for "why pending": a position; behind these, "at least this many ahead"). A
     * heartbeat goes out every tick and the dispatcher reads them all: the whole queue (up to the
     * accept limit, 1,000 by default) would make each ~55 KB.
     */
    public static final int QUEUE_HEAD = 100;

    /** How many groups of same-sized waiting attempts a heartbeat lists (the largest; the rest are in queuedDemand). */
    public static final int QUEUED_SHAPES = 50;

    private FrameworkHeartbeats() {
    }

    public static FrameworkHeartbeat of(String frameworkId, int shard, int acceptLimit, Collection<Offer> offers,
                                        Collection<TaskDispatch> queue, long now) {
        Capacity total = Resources.zero(), free = Resources.zero(), largestFree = Resources.zero(), largestTotal = Resources.zero();
        Set<DiskType> diskTypes = EnumSet.noneOf(DiskType.class);
        boolean network = false;
        Set<String> labels = new TreeSet<>();
        for (Offer offer : offers) {
            total = Resources.plus(total, offer.total());
            free = Resources.plus(free, offer.free());
            largestFree = Resources.max(largestFree, offer.free());
            largestTotal = Resources.max(largestTotal, offer.total());
            diskTypes.add(offer.diskType());
            network |= offer.network();
            offer.labels().forEach((k, v) -> labels.add(k + "=" + v));
        }
        Capacity queuedDemand = Resources.zero();
        Map<List<Object>, QueuedShape> shapes = new HashMap<>();
        for (TaskDispatch d : queue) {
            TaskDefinition task = d.getReady().getTask();
            queuedDemand = Resources.plus(queuedDemand, task.getResources());
            QueuedShape shape = shapes.computeIfAbsent(List.of(task.getResources(), task.getSpotAllowed()),
                    k -> new QueuedShape(task.getResources(), 0, task.getSpotAllowed()));
            shape.setCount(shape.getCount() + 1);
        }
        List<QueuedShape> largest = new ArrayList<>(shapes.values());
        largest.sort(Comparator.comparingInt(QueuedShape::getCount).reversed());
        return FrameworkHeartbeat.newBuilder()
                .setFrameworkId(frameworkId).setShard(shard).setNodes(offers.size())
                .setTotal(total).setFree(free).setLargestNodeFree(largestFree).setLargestNodeTotal(largestTotal)
                .setDiskTypes(new ArrayList<>(diskTypes)).setNetwork(network)
                .setQueued(queue.size()).setQueuedDemand(queuedDemand).setAcceptLimit(acceptLimit).setSentAt(now)
                .setNodeLabels(new ArrayList<>(labels))
                .setQueuedShapes(new ArrayList<>(largest.subList(0, Math.min(QUEUED_SHAPES, largest.size())))).build();
    }
}
