package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.client.JobClient;
import io.flash.schema.CapacityDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/**
 * {@code flash capacity}: each framework's node classes with their prices and live nodes, and
 * {@code flash capacity reclaim NODE}, which tells a spot node its capacity is being taken back, as
 * its provider would (docs/cost.md).
 */
final class CapacityCommands {

    private CapacityCommands() {
    }

    @Command(name = "capacity", description = {"Each framework's node classes: what one node offers, its prices on demand and on spot,",
            "and how many live nodes of it there are (on spot, idle). 'capacity reclaim NODE' reclaims a spot node."},
            subcommands = Reclaim.class)
    static final class Capacity extends FlashCli.Sub {

        /** How many of the autoscaler's decisions it shows. */
        static final int DECISIONS = 10;

        @Override
        public Integer call() throws Exception {
            JsonNode shards = Api.get(term(), flash.api(), "/frameworks", Duration.ofSeconds(30));
            if (shards == null) return 1;
            Map<String, Map<String, int[]>> counts = new TreeMap<>();
            Map<String, JsonNode> classes = new TreeMap<>();
            for (JsonNode shard : shards) {
                for (JsonNode c : shard.path("nodeClasses")) {
                    String key = shard.get("frameworkId").asText() + " " + c.get("name").asText();
                    classes.putIfAbsent(key, c);
                    int[] n = counts.computeIfAbsent(shard.get("frameworkId").asText(), k -> new TreeMap<>())
                            .computeIfAbsent(c.get("name").asText(), k -> new int[3]);
                    n[0] += c.get("nodes").asInt();
                    n[1] += c.get("spotNodes").asInt();
                    n[2] += c.get("idleNodes").asInt();
                }
            }
            term().out().printf("%-12s %-14s %-16s %11s %11s %6s %5s %5s%n", "FRAMEWORK", "CLASS", "NODE cpu/mem", "ON DEMAND/h",
                    "SPOT/h", "NODES", "SPOT", "IDLE");
            classes.forEach((key, c) -> {
                String framework = key.substring(0, key.indexOf(' '));
                int[] n = counts.get(framework).get(c.get("name").asText());
                JsonNode node = c.get("capacity");
                term().out().printf("%-12s %-14s %-16s %11.4f %11.4f %6d %5d %5d%n", framework, c.get("name").asText(),
                        String.format("%.1f/%dMi", node.get("cpu").asDouble(), node.get("memoryBytes").asLong() >> 20),
                        c.get("onDemandPerHour").asDouble(), c.get("spotPerHour").asDouble(), n[0], n[1], n[2]);
            });
            if (classes.isEmpty()) term().out().println("no framework reports node classes yet (is framework-ecs running?)");
            try (JobClient client = new JobClient(flash.bootstrap(), flash.registry())) {
                List<CapacityDecision> recent = client.recentDecisions(DECISIONS);
                term().out().println();
                term().out().println(recent.isEmpty() ? "the autoscaler has decided nothing yet (docs/autoscaling.md)"
                        : "the autoscaler's last " + recent.size() + " decisions:");
                for (CapacityDecision d : recent) {
                    term().out().printf("  %s %-10s %-6s %-28s %s%n", Instant.ofEpochMilli(d.getAt()), d.getFrameworkId(), d.getAction(),
                            d.getNodeId(), d.getReason());
                }
            }
            return 0;
        }
    }

    @Command(name = "reclaim", description = {"Reclaim a spot node, as its provider would: it takes no new work at once; when the",
            "notice runs out, what it still runs is lost as SPOT_RECLAIMED (retried elsewhere, free) and the node leaves."})
    static final class Reclaim implements Callable<Integer> {
        @ParentCommand
        Capacity capacity;

        @Parameters(paramLabel = "NODE", description = "the node's id, as 'flash nodes' shows it")
        String nodeId;

        @Option(names = "--notice", paramLabel = "SECONDS", defaultValue = "120",
                description = "seconds from now until the capacity goes (default: ${DEFAULT-VALUE}, as the clouds give)")
        long noticeSeconds;

        @Override
        public Integer call() throws Exception {
            Terminal term = capacity.term();
            JsonNode nodes = Api.get(term, capacity.flash.api(), "/nodes", Duration.ofSeconds(30));
            if (nodes == null) return 1;
            JsonNode node = null;
            for (JsonNode n : nodes) if (n.get("nodeId").asText().equals(nodeId)) node = n;
            if (node == null) {
                term.err().println("no node " + nodeId + " has reported; see 'flash nodes'");
                return 1;
            }
            if (!node.path("spot").asBoolean()) {
                term.err().println(nodeId + " is on-demand capacity: only spot nodes are reclaimed");
                return 1;
            }
            long leaveAt = System.currentTimeMillis() + Math.max(0, noticeSeconds) * 1000;
            try (JobClient client = new JobClient(capacity.flash.bootstrap(), capacity.flash.registry())) {
                client.reclaimNode(node.get("frameworkId").asText(), nodeId, node.get("assignmentPartition").asInt(), leaveAt,
                        "flash capacity reclaim by " + System.getProperty("user.name"));
            }
            term.out().println(nodeId + ": reclaim notice sent; it takes no new work and leaves at " + Instant.ofEpochMilli(leaveAt)
                    + " (what it still runs then is retried elsewhere, free)");
            return 0;
        }
    }
}
