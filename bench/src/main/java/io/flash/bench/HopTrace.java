package io.flash.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a job's time goes between services: for every topic whose keys begin with the job id (task,
 * shard and attempt ids do), when a committed record of the job first became visible to a reader,
 * measured from its submission. Read with read_committed, as the services read, so a hop's figure
 * includes the commit that publishes it; the differences between consecutive topics are the hops.
 */
final class HopTrace {

    /** Job ids are "job-" and a UUID. */
    private static final int JOB_ID_LENGTH = 40;

    private final Map<String, Map<String, Long>> firstSeen = new HashMap<>();

    /** Every partition of every Flash topic but the ones the bench reads itself (they are traced through {@link #see}). */
    static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, Set<String> already) {
        List<TopicPartition> all = new ArrayList<>();
        consumer.listTopics().forEach((topic, infos) -> {
            if (topic.startsWith("__") || already.contains(topic)) return;
            infos.forEach(p -> all.add(new TopicPartition(topic, p.partition())));
        });
        return all;
    }

    void see(ConsumerRecord<String, ?> record, long now) {
        String key = record.key();
        if (key == null || !key.startsWith("job-") || key.length() < JOB_ID_LENGTH) return;
        firstSeen.computeIfAbsent(record.topic(), t -> new HashMap<>()).putIfAbsent(key.substring(0, JOB_ID_LENGTH), now);
    }

    /** One row per topic that carried most of the jobs: p50 / p99 of submit → first visible, earliest first. */
    String table(Map<String, Long> submittedAt) {
        record Row(String topic, int jobs, double p50, double p99) {
        }
        List<Row> rows = new ArrayList<>();
        firstSeen.forEach((topic, seen) -> {
            List<Long> after = new ArrayList<>();
            seen.forEach((job, at) -> {
                Long submitted = submittedAt.get(job);
                if (submitted != null) after.add(at - submitted);
            });
            if (after.size() >= submittedAt.size() / 2) {
                rows.add(new Row(topic, after.size(), Percentiles.of(after, 50), Percentiles.of(after, 99)));
            }
        });
        rows.sort((a, b) -> Double.compare(a.p50(), b.p50()));
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-64s %8s %9s %9s%n", "submit → first visible on", "jobs", "p50 ms", "p99 ms"));
        rows.forEach(r -> out.append(String.format(Locale.ROOT, "%-64s %,8d %9.0f %9.0f%n", r.topic(), r.jobs(), r.p50(), r.p99())));
        return out.toString();
    }
}
