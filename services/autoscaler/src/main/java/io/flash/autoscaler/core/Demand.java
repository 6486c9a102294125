package io.flash.autoscaler.core;

import io.flash.schema.Capacity;
import io.flash.schema.QueuedShape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Work waiting in one shard that nothing there can take: its queue, less what fits in the free room
 * of its available nodes and in the nodes already launched for it. Counted per shape, arithmetically
 * (a shard's queue is at most a few groups of thousands of the same size).
 */
final class Demand {

    /** Attempts of one shape still without room. */
    static final class Unmet {
        final Capacity need;
        final boolean spotAllowed;
        long count;

        Unmet(Capacity need, boolean spotAllowed, long count) {
            this.need = need;
            this.spotAllowed = spotAllowed;
            this.count = count;
        }
    }

    /** Room that will take work: a node's free capacity now, or a launched node's whole capacity. */
    record Room(Capacity free, boolean spot) {
    }

    private Demand() {
    }

    static List<Unmet> unmet(List<QueuedShape> waiting, List<Room> rooms) {
        List<Unmet> left = new ArrayList<>();
        for (QueuedShape shape : waiting) left.add(new Unmet(shape.getNeed(), shape.getSpotAllowed(), shape.getCount()));
        left.sort(Comparator.comparingDouble((Unmet u) -> size(u.need)).reversed());
        for (Room room : rooms) {
            double cpu = room.free().getCpu();
            long memory = room.free().getMemoryBytes(), disk = room.free().getDiskBytes();
            int gpus = room.free().getGpus();
            for (Unmet u : left) {
                if (u.count == 0 || room.spot() && !u.spotAllowed) continue;
                long fits = Math.min(u.count, fit(u.need, cpu, memory, disk, gpus));
                u.count -= fits;
                cpu -= fits * u.need.getCpu();
                memory -= fits * u.need.getMemoryBytes();
                disk -= fits * u.need.getDiskBytes();
                gpus -= (int) (fits * u.need.getGpus());
            }
        }
        left.removeIf(u -> u.count == 0);
        return left;
    }

    /** How many of {@code need} fit in this room (a need of nothing in every resource: as many as wait). */
    static long fit(Capacity need, double cpu, long memory, long disk, int gpus) {
        long fits = Long.MAX_VALUE;
        if (need.getCpu() > 0) fits = Math.min(fits, (long) Math.floor(cpu / need.getCpu() + 1e-9));
        if (need.getMemoryBytes() > 0) fits = Math.min(fits, memory / need.getMemoryBytes());
        if (need.getDiskBytes() > 0) fits = Math.min(fits, disk / need.getDiskBytes());
        if (need.getGpus() > 0) fits = Math.min(fits, gpus / need.getGpus());
        return Math.max(0, fits);
    }

    static long fit(Capacity need, Capacity room) {
        return fit(need, room.getCpu(), room.getMemoryBytes(), room.getDiskBytes(), room.getGpus());
    }

    /** Orders shapes largest first, so big attempts claim room before small ones fill it. */
    private static double size(Capacity c) {
        return c.getCpu() + c.getMemoryBytes() / (double) (1L << 30) + c.getGpus() * 8.0;
    }
}
