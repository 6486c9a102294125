package io.flash.common.resources;

/**
 * The one memory rule of the platform: the most memory one task may have — what ingest accepts and
 * what the planner's growth after an OOM kill stops at — and how much an OOM-killed attempt's memory
 * grows. Configured as {@code flash.memory.max-task} (FLASH_MAX_TASK_MEMORY) in ingest and the
 * dag-planner alike, and {@code flash.planner.oom-memory-factor}.
 *
 * @param oomGrowthFactor memory multiplier for the retry of an OOM-killed attempt
 * @param ceilingBytes    the most memory a task may ask for, or grow to
 */
public record MemoryPolicy(double oomGrowthFactor, long ceilingBytes) {

    public static final long DEFAULT_CEILING_BYTES = 4L << 40;
    public static final double DEFAULT_GROWTH_FACTOR = 2.0;

    public MemoryPolicy {
        if (!(oomGrowthFactor > 1.0)) throw new IllegalArgumentException("the OOM growth factor must be above 1, not " + oomGrowthFactor);
        if (ceilingBytes <= 0) throw new IllegalArgumentException("the memory ceiling must be positive, not " + ceilingBytes);
    }

    public static MemoryPolicy defaults() {
        return new MemoryPolicy(DEFAULT_GROWTH_FACTOR, DEFAULT_CEILING_BYTES);
    }

    /** Memory for the attempt after an OOM kill of one that had {@code current}: grown, never past the ceiling. */
    public long grown(long current) {
        return Math.min(ceilingBytes, (long) Math.ceil(current * oomGrowthFactor));
    }

    /** Whether an attempt with {@code current} memory cannot grow any more. */
    public boolean atCeiling(long current) {
        return current >= ceilingBytes;
    }
}
