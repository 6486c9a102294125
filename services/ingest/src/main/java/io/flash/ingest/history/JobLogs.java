package io.flash.ingest.history;

import io.flash.common.ids.JobIds;
import io.flash.schema.LogChunk;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's output as people read it, from the chunks on flash.tasks.logs: one text per attempt, its
 * chunks in order and each once (an executor that restarts replays an attempt's chunks from the
 * start), attempts in the order they began. No Kafka here: {@link LogReader} fetches the chunks.
 */
public final class JobLogs {

    /** One attempt's output. {@code complete}: its container exited and the last chunk arrived. */
    public record AttemptLog(String attemptId, String unitId, String nodeId, String text, boolean complete, long droppedBytes,
                             long firstAt, long lastAt) {
    }

    /** Which attempts a reader asks for: a task (all shards, or one), and one attempt of it; nulls for all. */
    public record Filter(String task, Integer shard, Integer attempt) {
        public static final Filter ALL = new Filter(null, null, null);

        boolean matches(String jobId, LogChunk chunk) {
            if (task == null) return true;
            String unit = shard == null ? JobIds.taskId(jobId, task) : JobIds.shardId(jobId, task, shard);
            boolean ofUnit = chunk.getTaskId().equals(unit) || (shard == null && chunk.getTaskId().startsWith(unit + ".s"));
            return ofUnit && (attempt == null || chunk.getAttemptId().equals(chunk.getTaskId() + "." + attempt));
        }
    }

    private JobLogs() {
    }

    public static List<AttemptLog> assemble(String jobId, Iterable<LogChunk> chunks, Filter filter) {
        Map<String, TreeMap<Long, LogChunk>> byAttempt = new LinkedHashMap<>();
        for (LogChunk c : chunks) {
            if (!c.getJobId().equals(jobId) || !filter.matches(jobId, c)) continue;
            byAttempt.computeIfAbsent(c.getAttemptId(), a -> new TreeMap<>()).putIfAbsent(c.getSeq(), c);
        }
        List<AttemptLog> logs = new ArrayList<>();
        for (TreeMap<Long, LogChunk> seqs : byAttempt.values()) {
            StringBuilder text = new StringBuilder();
            boolean complete = false;
            long dropped = 0;
            for (LogChunk c : seqs.values()) {
                text.append(c.getText());
                complete |= c.getLast();
                dropped = Math.max(dropped, c.getDroppedBytes());
            }
            LogChunk first = seqs.firstEntry().getValue(), last = seqs.lastEntry().getValue();
            boolean gapless = seqs.firstKey() == 0 && seqs.lastKey() == seqs.size() - 1;
            logs.add(new AttemptLog(first.getAttemptId(), first.getTaskId(), first.getNodeId(), text.toString(), complete && gapless,
                    dropped, first.getAt(), last.getAt()));
        }
        logs.sort(Comparator.comparingLong(AttemptLog::firstAt));
        return logs;
    }
}
