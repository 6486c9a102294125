package io.flash.dispatcher.core.selection;

import io.flash.common.resources.Resources;
import io.flash.schema.*;
import java.util.*;
import java.util.function.Function;

/**
 * Level 1: picks a framework for a ready attempt from the frameworks' latest heartbeats (one per
 * scheduling shard). Filters first — each rejection with its reason — then scores what is left:
 * {@code score = 1000 × [a dependency ran on this framework] + 10 × [its best shard can start it
 * now] + min(cpu left / cpu total, memory left / memory total) of that shard}, where "left" is the
 * shard's reported free amount minus what waits in its queue and what was sent to it since that
 * report (negative when over-committed). Locality always wins; then a framework that can start the
 * task at once; then the least loaded. A framework takes tasks into its queue up to the limit its
 * heartbeat gives, so that its fair-share ordering sees every user's waiting work; only a task no
 * framework can queue (down, full, lacking a disk type, too small, ...) is held here.
 */
public final class FrameworkSelector {

    private static final double LOCALITY_BONUS = 1000;
    private static final double FITS_NOW_BONUS = 10;
    private final long heartbeatTimeoutMillis;

    public FrameworkSelector(long heartbeatTimeoutMillis) {
        this.heartbeatTimeoutMillis = heartbeatTimeoutMillis;
    }

    /** A shard whose newest heartbeat is older than this is DOWN. */
    public long heartbeatTimeoutMillis() {
        return heartbeatTimeoutMillis;
    }

    /**
     * @param shards   latest heartbeat of every framework shard
     * @param reserved what was dispatched to each shard ("fw/shard") since its heartbeat, not yet in it
     */
    public Decision choose(TaskReady ready, Collection<FrameworkHeartbeat> shards, Map<String, Reservation> reserved, long now) {
        Decision decision = choose(ready, shards, reserved, now, true);
        if (decision instanceof Decision.Dispatch || ready.getExcludedFrameworks().isEmpty()) {
            return decision;
        }
        // Exclusions steer a retry elsewhere; where there is no elsewhere, the excluded framework may try again.
        Decision fallback = choose(ready, shards, reserved, now, false);
        return fallback instanceof Decision.Dispatch ? fallback : decision;
    }

    private Decision choose(TaskReady ready, Collection<FrameworkHeartbeat> shards, Map<String, Reservation> reserved, long now,
                            boolean honourExclusions) {
        TaskDefinition task = ready.getTask();
        Map<String, List<FrameworkHeartbeat>> byFramework = new TreeMap<>();
        for (FrameworkHeartbeat hb : shards) {
            byFramework.computeIfAbsent(hb.getFrameworkId(), k -> new ArrayList<>()).add(hb);
        }
        if (byFramework.isEmpty()) {
            return new Decision.Hold("no framework has sent a heartbeat yet");
        }
        List<String> reasons = new ArrayList<>();
        boolean couldEverFit = false;
        Candidate best = null;
        for (var entry : byFramework.entrySet()) {
            String fw = entry.getKey();
            List<FrameworkHeartbeat> fwShards = entry.getValue();
            if (task.getFramework() != null && !task.getFramework().equals(fw)) {
                reasons.add(fw + " is not the requested framework " + task.getFramework());
                continue;
            }
            if (task.getRequireLocality() && !ready.getDependencyFrameworks().isEmpty()
                    && !ready.getDependencyFrameworks().contains(fw)) {
                reasons.add(fw + " is not where its dependencies ran (" + String.join(", ", ready.getDependencyFrameworks())
                        + ") and locality is required");
                continue;
            }
            if (honourExclusions && ready.getExcludedFrameworks().contains(fw)) {
                reasons.add(fw + " is excluded after earlier failures there");
                continue;
            }
            String never = neverFits(task, fwShards);
            if (never != null) {
                reasons.add(fw + " " + never);
                continue;
            }
            couldEverFit = true;
            long newest = fwShards.stream().mapToLong(FrameworkHeartbeat::getSentAt).max().orElse(0);
            if (now - newest > heartbeatTimeoutMillis) {
                reasons.add(fw + " is down (no heartbeat for " + (now - newest) / 1000 + " s)");
                continue;
            }
            if (fwShards.stream().allMatch(FrameworkHeartbeat::getLeaving)) {
                reasons.add(fw + " is shutting down (its shards said they are leaving)");
                continue;
            }
            Candidate shard = bestShard(fw, task, fwShards, reserved, now);
            if (shard == null) {
                reasons.add(fw + " " + roomNote(task, fwShards, reserved));
                continue;
            }
            double score = (ready.getDependencyFrameworks().contains(fw) ? LOCALITY_BONUS : 0) + shard.freeShare;
            Candidate scored = new Candidate(fw, shard.shard, score);
            if (best == null || scored.freeShare > best.freeShare) {
                best = scored;
            }
        }
        if (best != null) {
            return new Decision.Dispatch(best.frameworkId, best.shard);
        }
        String summary = byFramework.size() + (byFramework.size() == 1 ? " framework: " : " frameworks: ") + String.join("; ", reasons);
        if (task.getFramework() != null && !byFramework.containsKey(task.getFramework())) {
            return new Decision.Hold("requested framework " + task.getFramework() + " has not sent a heartbeat; " + summary);
        }
        return couldEverFit ? new Decision.Hold(summary) : new Decision.Fail(summary);
    }

    /** Whether any live shard has room in its queue: if none has, no held attempt can be dispatched now. */
    public boolean anyQueueRoom(Collection<FrameworkHeartbeat> shards, Map<String, Reservation> reserved, long now) {
        for (FrameworkHeartbeat hb : shards) {
            if (!Elastic.usable(hb) || now - hb.getSentAt() > heartbeatTimeoutMillis) continue;
            Reservation r = reserved.getOrDefault(key(hb.getFrameworkId(), hb.getShard()), Reservation.NONE);
            if (hb.getQueued() + r.count() < hb.getAcceptLimit()) return true;
        }
        return false;
    }

    /** Why this framework could never run the task, or null. */
    private static String neverFits(TaskDefinition task, List<FrameworkHeartbeat> shards) {
        Capacity need = task.getResources();
        Capacity largest = largest(shards, Elastic::largestNode);
        if (shards.stream().allMatch(s -> s.getNodes() == 0 && !s.getElastic())) {
            return null; // no nodes yet: it may grow, so hold rather than fail
        }
        if (need.getCpu() > largest.getCpu() + 1e-9) {
            return "has no node with " + fmt(need.getCpu()) + " cpu (largest: " + fmt(largest.getCpu()) + ")";
        }
        if (need.getMemoryBytes() > largest.getMemoryBytes()) {
            return "has no node with " + mib(need.getMemoryBytes()) + " memory (largest: " + mib(largest.getMemoryBytes()) + ")";
        }
        if (need.getDiskBytes() > largest.getDiskBytes()) {
            return "has no node with " + mib(need.getDiskBytes()) + " disk (largest: " + mib(largest.getDiskBytes()) + ")";
        }
        if (need.getGpus() > largest.getGpus()) {
            return "has no node with " + need.getGpus() + " gpus (largest: " + largest.getGpus() + ")";
        }
        if (task.getDiskType() != DiskType.ANY
                && shards.stream().noneMatch(s -> Elastic.offersDiskType(s, task.getDiskType()))) {
            return "lacks disk type " + task.getDiskType().name().toLowerCase(Locale.ROOT);
        }
        if (task.getNetwork() == NetworkMode.BRIDGE && shards.stream().noneMatch(Elastic::offersNetwork)) {
            return "offers no network";
        }
        for (var label : task.getNodeLabels().entrySet()) {
            String wanted = label.getKey() + "=" + label.getValue();
            if (shards.stream().noneMatch(s -> Elastic.offersLabel(s, label.getKey(), label.getValue()))) {
                return "has no node labelled " + wanted;
            }
        }
        return null;
    }

    private Candidate bestShard(String fw, TaskDefinition task, List<FrameworkHeartbeat> shards,
                                Map<String, Reservation> reserved, long now) {
        Candidate best = null;
        Capacity need = task.getResources();
        for (FrameworkHeartbeat hb : shards) {
            if (!Elastic.usable(hb) || now - hb.getSentAt() > heartbeatTimeoutMillis) continue;
            Reservation r = reserved.getOrDefault(key(fw, hb.getShard()), Reservation.NONE);
            if (hb.getQueued() + r.count() >= hb.getAcceptLimit()) continue;
            if (!hasLabels(hb, task)) continue;
            if (!Resources.fits(need, Elastic.largestNode(hb))) continue;
            Capacity queued = hb.getQueuedDemand() == null ? Resources.zero() : hb.getQueuedDemand();
            double cpuLeft = hb.getFree().getCpu() - queued.getCpu() - r.cpu();
            long memLeft = hb.getFree().getMemoryBytes() - queued.getMemoryBytes() - r.memoryBytes();
            Capacity nodeFree = hb.getLargestNodeFree();
            boolean fitsNow = need.getCpu() <= Math.min(cpuLeft, nodeFree.getCpu()) + 1e-9
                    && need.getMemoryBytes() <= Math.min(memLeft, nodeFree.getMemoryBytes())
                    && need.getDiskBytes() <= nodeFree.getDiskBytes() && need.getGpus() <= nodeFree.getGpus();
            // Least loaded first: the part of cpu and memory left after what is queued and on its way
            // (negative when over-committed); a shard that can start it at once beats one that queues it.
            double share = (fitsNow ? FITS_NOW_BONUS : 0) + Math.min(cpuLeft / Math.max(hb.getTotal().getCpu(), 1e-9),
                    (double) memLeft / Math.max(hb.getTotal().getMemoryBytes(), 1)) + cpuLeft * 1e-6; // ties: the larger shard
            if (best == null || share > best.freeShare) {
                best = new Candidate(fw, hb.getShard(), share);
            }
        }
        return best;
    }

    /** Each label the task asks for is on some node of the shard; whether one node has them all, the shard decides. */
    private static boolean hasLabels(FrameworkHeartbeat shard, TaskDefinition task) {
        for (var label : task.getNodeLabels().entrySet()) {
            if (!Elastic.offersLabel(shard, label.getKey(), label.getValue())) return false;
        }
        return true;
    }

    private static String roomNote(TaskDefinition task, List<FrameworkHeartbeat> shards, Map<String, Reservation> reserved) {
        double freeCpu = 0, totalCpu = 0;
        long freeMem = 0;
        int queued = 0, limit = 0;
        for (FrameworkHeartbeat hb : shards) {
            Reservation r = reserved.getOrDefault(key(hb.getFrameworkId(), hb.getShard()), Reservation.NONE);
            freeCpu += Math.max(0, hb.getFree().getCpu() - r.cpu());
            totalCpu += hb.getTotal().getCpu();
            freeMem += Math.max(0, hb.getFree().getMemoryBytes() - r.memoryBytes());
            queued += hb.getQueued() + r.count();
            limit += hb.getAcceptLimit();
        }
        String free = fmt(freeCpu) + " of " + fmt(totalCpu) + " cpu and " + mib(freeMem) + " memory free";
        if (queued >= limit) {
            return "has a full queue (" + queued + " of " + limit + " waiting; " + free + ")";
        }
        return "has no live shard whose queue and nodes can take " + fmt(task.getResources().getCpu()) + " cpu and "
                + mib(task.getResources().getMemoryBytes()) + " (" + free + ")";
    }

    private static Capacity largest(List<FrameworkHeartbeat> shards, Function<FrameworkHeartbeat, Capacity> f) {
        Capacity max = Resources.zero();
        for (FrameworkHeartbeat hb : shards) max = Resources.max(max, f.apply(hb));
        return max;
    }

    public static String key(String frameworkId, int shard) {
        return frameworkId + "/" + shard;
    }

    private static String fmt(double cpu) {
        return cpu == Math.rint(cpu) ? Long.toString((long) cpu) : String.format(Locale.ROOT, "%.2f", cpu);
    }

    private static String mib(long bytes) {
        return (bytes >> 20) + "Mi";
    }

    private record Candidate(String frameworkId, int shard, double freeShare) {
    }

    /** Resources sent to a shard after its last heartbeat was taken. */
    public record Reservation(int count, double cpu, long memoryBytes) {
        public static final Reservation NONE = new Reservation(0, 0, 0);
    }
}
