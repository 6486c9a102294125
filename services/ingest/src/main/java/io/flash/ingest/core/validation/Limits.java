package io.flash.ingest.core.validation;

import io.flash.common.resources.MemoryPolicy;

/**
 * What ingest accepts, and the defaults for what a task leaves out. Configured from
 * {@code flash.ingest.*} properties; the defaults here are documented in docs/job-format.md.
 */
public record Limits(int maxTasks, double maxCpu, long maxMemoryBytes, int maxAttempts,
                     double defaultCpu, long defaultMemoryBytes, int maxShards, int maxSpecBytes) {

    public static final long MIN_MEMORY_BYTES = 4L << 20;
    /** More GPUs than any one machine holds (the largest servers have 8 to 16). */
    public static final int MAX_GPUS = 64;

    public static Limits defaults() {
        return new Limits(1000, 256, MemoryPolicy.DEFAULT_CEILING_BYTES, 10, 1.0, 512L << 20, 1_000_000,
                512 * 1024);
    }
}
