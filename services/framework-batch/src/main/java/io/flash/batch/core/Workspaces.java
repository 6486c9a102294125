package io.flash.batch.core;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** What an attempt left in the job's workspace on the cluster's shared storage. */
public interface Workspaces {

    /** Whether the kernel killed the attempt's container for its memory (the job script leaves a mark). */
    boolean oomKilled(String jobId, String attemptId);

    /** Whether the job script ended the attempt at the task's timeout (it leaves a mark). */
    boolean timedOut(String jobId, String attemptId);

    /** The exit status the job script wrote when the container ended, or null (still running, or the script never got there). */
    Integer exitStatus(String jobId, String attemptId);

    /** What the attempt's container used, read by the job script from its cgroup as it ended, or null (not written). */
    Usage usage(String jobId, String attemptId);

    record Usage(long peakMemoryBytes, double cpuSeconds) {
    }

    /** The end of the attempt's output, or null. */
    String tail(String jobId, String attemptId);

    /**
     * The attempt's output from byte {@code from}: at most {@code max} bytes of whole lines (all of
     * it, if {@code toTheEnd}, with what lies past {@code max} skipped and counted).
     */
    Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd);

    /** Which of the declared outputs the job left in its workspace ("path (bytes)"), and which it did not. */
    Outputs outputs(String jobId, List<String> declared);

    record Outputs(List<String> found, List<String> missing) {
    }

    /** A piece of output and where the next one starts. */
    record Output(String text, long next, long skippedBytes) {

        /**
         * The piece of an output of {@code length} bytes that starts at byte {@code from}, given as
         * {@code count} bytes of {@code bytes} from {@code offset} (at most {@code max}): whole lines
         * only, unless one line is longer than a piece or this is the end, when what lies past
         * {@code max} is skipped and counted.
         */
        public static Output cut(byte[] bytes, int offset, int count, long from, int max, boolean toTheEnd, long length) {
            int end = count;
            if (!toTheEnd) { // whole lines only: the rest comes with the next piece
                while (end > 0 && bytes[offset + end - 1] != '\n') end--;
                if (end == 0 && count == max) end = max; // one line longer than a piece: cut it
            }
            long skipped = toTheEnd ? length - from - end : 0;
            return new Output(new String(bytes, offset, end, StandardCharsets.UTF_8), from + end + skipped, skipped);
        }
    }
}
