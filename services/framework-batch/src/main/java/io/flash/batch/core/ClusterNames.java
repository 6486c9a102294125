package io.flash.batch.core;

/**
 * The name of an attempt's cluster job: {@code <framework>.<shard>.<attempt id>}. The attempt makes a
 * submission idempotent (a job already under the name is adopted, not submitted again); the shard
 * lets one look at the cluster be split among the shards, and a job no shard holds be found; the
 * framework keeps two adapters on one cluster out of each other's jobs.
 */
public final class ClusterNames {

    private ClusterNames() {
    }

    /** What every job of the framework's name begins with. */
    public static String prefix(String frameworkId) {
        return frameworkId + ".";
    }

    public static String of(String frameworkId, int shard, String attemptId) {
        return prefix(frameworkId) + shard + "." + attemptId;
    }

    /** The shard a job of the framework belongs to, or -1 for a name not made by {@link #of}. */
    public static int shardOf(String frameworkId, String name) {
        String prefix = prefix(frameworkId);
        int dot = name.indexOf('.', prefix.length());
        if (!name.startsWith(prefix) || dot < 0) return -1;
        try {
            return Integer.parseInt(name.substring(prefix.length(), dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The attempt a job of the framework runs, or null for a name not made by {@link #of}. */
    public static String attemptOf(String frameworkId, String name) {
        return shardOf(frameworkId, name) < 0 ? null : name.substring(name.indexOf('.', prefix(frameworkId).length()) + 1);
    }
}
