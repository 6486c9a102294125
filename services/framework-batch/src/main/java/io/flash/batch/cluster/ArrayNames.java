package io.flash.batch.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of job arrays. The shards of one scattered task at one attempt number, sent to one
 * framework shard together, go to the cluster as one array whose element index is the shard's
 * index; the array's name is its elements' job name with that index replaced by {@code _}
 * ({@code slurm.0.<job>.align.s_.1}). So every element's own name, and with it its attempt, follows
 * from the array's name and the index: a look lists each element under the name it would have had
 * alone, and nothing else in Flash needs to know it ran in an array.
 */
public final class ArrayNames {

    private static final Pattern ELEMENT = Pattern.compile("^(.*\\.s)(\\d+)(\\.\\d+)$");
    private static final String INDEX = "_";
    /** An array's name, read for every job line of every look: compiled once. */
    private static final Pattern ARRAY = Pattern.compile("^.*\\.s" + INDEX + "\\.\\d+$");

    private ArrayNames() {
    }

    /** The array a shard attempt's job name can join, or null for an attempt of an unscattered task. */
    public static String arrayOf(String jobName) {
        Matcher m = ELEMENT.matcher(jobName);
        return m.matches() ? m.group(1) + INDEX + m.group(3) : null;
    }

    /** The element index of a shard attempt's job name (its shard), or -1. */
    public static int indexOf(String jobName) {
        Matcher m = ELEMENT.matcher(jobName);
        if (!m.matches() || m.group(2).length() > 9) return -1;
        return Integer.parseInt(m.group(2));
    }

    /** A shard attempt's id or job name with Slurm's {@code %a} for its index: where each element's files go. */
    public static String pattern(String shardAttempt) {
        Matcher m = ELEMENT.matcher(shardAttempt);
        if (!m.matches()) throw new IllegalArgumentException(shardAttempt + " is not a shard's attempt");
        return m.group(1) + "%a" + m.group(3);
    }

    /** Whether a job name is an array's (made by {@link #arrayOf}). */
    public static boolean isArray(String name) {
        return ARRAY.matcher(name).matches();
    }

    /** An element's job name: the array's, with its index. */
    public static String element(String arrayName, int index) {
        int at = arrayName.lastIndexOf(".s" + INDEX + ".");
        return arrayName.substring(0, at) + ".s" + index + arrayName.substring(at + 2 + INDEX.length());
    }

    /** Indices as ranges, for {@code sbatch --array}: 0-3,7,9-10. */
    static String ranges(SortedSet<Integer> indices) {
        List<String> parts = new ArrayList<>();
        Integer start = null, last = null;
        for (int i : indices) {
            if (last != null && i == last + 1) {
                last = i;
                continue;
            }
            if (start != null) parts.add(start.equals(last) ? start.toString() : start + "-" + last);
            start = i;
            last = i;
        }
        if (start != null) parts.add(start.equals(last) ? start.toString() : start + "-" + last);
        return String.join(",", parts);
    }

    /** Sorted indices as arithmetic runs, each as long as it goes (for qsub -t first-last:step): 0,2,4,5 → [0,2,4], [5]. */
    static List<List<Integer>> arithmeticRuns(List<Integer> sorted) {
        List<List<Integer>> runs = new ArrayList<>();
        List<Integer> run = new ArrayList<>();
        for (int i : sorted) {
            if (run.size() >= 2 && i - run.get(run.size() - 1) != run.get(1) - run.get(0)) {
                runs.add(run);
                run = new ArrayList<>();
            }
            run.add(i);
        }
        if (!run.isEmpty()) runs.add(run);
        return runs;
    }

    /** Slurm's list of array indices ("0-3,7,9-15:2%4": ranges, steps, a throttle) as the indices. */
    static List<Integer> expand(String list) {
        List<Integer> indices = new ArrayList<>();
        int throttle = list.indexOf('%');
        for (String part : (throttle < 0 ? list : list.substring(0, throttle)).split(",")) {
            if (part.isBlank()) continue;
            int colon = part.indexOf(':');
            int step = colon < 0 ? 1 : Integer.parseInt(part.substring(colon + 1));
            String range = colon < 0 ? part : part.substring(0, colon);
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            for (int i = from; i <= to; i += step) indices.add(i);
        }
        return indices;
    }
}
