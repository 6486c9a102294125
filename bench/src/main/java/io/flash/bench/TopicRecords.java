package io.flash.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * Every record written to every topic of the broker — changelogs, repartition topics, consumer
 * offsets, the transaction log and the transaction markers included (a marker takes an offset of
 * each partition a transaction touched) — as the growth of the partitions' end offsets between two
 * snapshots. Offsets are the broker's own count, so nothing a service writes escapes it.
 */
final class TopicRecords implements AutoCloseable {

    private final Admin admin;

    TopicRecords(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    /** The sum of each topic's partitions' end offsets now. */
    Map<String, Long> snapshot() throws ExecutionException, InterruptedException {
        var names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        topics.values().forEach(t -> t.partitions().forEach(p -> latest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest())));
        Map<String, Long> ends = new TreeMap<>();
        admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.merge(tp.topic(), info.offset(), Long::sum));
        return ends;
    }

    /** Records per task by topic between two snapshots, largest first, and the total. */
    static String table(Map<String, Long> before, Map<String, Long> after, int tasks) {
        Map<String, Long> grown = after.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue() - before.getOrDefault(e.getKey(), 0L)));
        List<Map.Entry<String, Long>> rows = grown.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).toList();
        long total = rows.stream().mapToLong(Map.Entry::getValue).sum();
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-72s %12s %10s%n", "records written, by topic", "records", "per task"));
        for (Map.Entry<String, Long> row : rows) {
            out.append(String.format(Locale.ROOT, "%-72s %,12d %10.2f%n", row.getKey(), row.getValue(), row.getValue() / (double) tasks));
        }
        out.append(String.format(Locale.ROOT, "%-72s %,12d %10.2f%n", "all topics", total, total / (double) tasks));
        return out.toString();
    }

    @Override
    public void close() {
        admin.close();
    }
}
