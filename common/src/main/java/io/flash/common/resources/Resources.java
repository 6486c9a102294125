package io.flash.common.resources;

import io.flash.schema.Capacity;

/** Arithmetic on {@link Capacity}, the one every service uses (a zero, sums, differences floored at 0, maxima, fit). */
public final class Resources {
    private Resources() {
    }

    public static Capacity zero() {
        return new Capacity(0.0, 0L, 0L, 0);
    }

    public static Capacity plus(Capacity a, Capacity b) {
        return new Capacity(a.getCpu() + b.getCpu(), a.getMemoryBytes() + b.getMemoryBytes(),
                a.getDiskBytes() + b.getDiskBytes(), a.getGpus() + b.getGpus());
    }

    public static Capacity minus(Capacity a, Capacity b) {
        return new Capacity(Math.max(0, a.getCpu() - b.getCpu()), Math.max(0, a.getMemoryBytes() - b.getMemoryBytes()),
                Math.max(0, a.getDiskBytes() - b.getDiskBytes()), Math.max(0, a.getGpus() - b.getGpus()));
    }

    public static Capacity max(Capacity a, Capacity b) {
        return new Capacity(Math.max(a.getCpu(), b.getCpu()), Math.max(a.getMemoryBytes(), b.getMemoryBytes()),
                Math.max(a.getDiskBytes(), b.getDiskBytes()), Math.max(a.getGpus(), b.getGpus()));
    }

    public static boolean fits(Capacity need, Capacity free) {
        return need.getCpu() <= free.getCpu() + 1e-9 && need.getMemoryBytes() <= free.getMemoryBytes()
                && need.getDiskBytes() <= free.getDiskBytes() && need.getGpus() <= free.getGpus();
    }
}
