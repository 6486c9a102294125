package io.flash.common.topics;

import io.flash.common.serde.PlainAvroSerdes;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** The README's topic table says what the catalogue declares: every topic, its value type, how long it keeps records. */
class TopicCatalogTest {

    private static final Pattern ROW = Pattern.compile("^\\| `(flash\\.[^`]+)` \\| [^|]+ \\| ([^|]+) \\| [^|]+ \\| ([^|]+) \\|$");

    @Test
    void theReadmeTableListsEveryTopicWithItsTypeAndRetention() throws Exception {
        Map<String, String[]> rows = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("../README.md"))) {
            Matcher m = ROW.matcher(line.strip());
            if (m.matches()) rows.put(m.group(1), new String[]{m.group(2).strip(), m.group(3).strip()});
        }
        List<TopicCatalog.Kind<?>> kinds = new ArrayList<>(TopicCatalog.PLATFORM);
        kinds.addAll(TopicCatalog.PER_FRAMEWORK);
        Set<String> declared = new TreeSet<>();
        for (TopicCatalog.Kind<?> kind : kinds) {
            String name = kind.name();
            declared.add(name);
            String[] row = rows.get(name);
            assertNotNull(row, name + " is not in the README's topic table");
            if (kind.valueType() != byte[].class) {
                assertTrue(row[0].startsWith("`" + kind.valueType().getSimpleName() + "`"), name + ": the README says " + row[0]);
            }
            long days = kind.compacted() ? 0 : kind.retention().toDays();
            String retention = kind.compacted() ? "compacted" : days + " day" + (days == 1 ? "" : "s");
            assertEquals(retention, row[1], name + "'s retention");
        }
        assertEquals(declared, rows.keySet(), "the README lists exactly the catalogue's topics");
    }

    @Test
    void aFrameworksTopicsAreNamedForItAndPartitionedByShard() {
        List<TopicSpec> specs = TopicCatalog.frameworkTopics("slurm-lab", 4, 8);
        assertEquals(List.of("flash.fw.slurm-lab.tasks", "flash.fw.slurm-lab.nodes", "flash.fw.slurm-lab.node-events",
                "flash.fw.slurm-lab.assignments", "flash.fw.slurm-lab.cluster-commands", "flash.fw.slurm-lab.cluster-reports"),
                specs.stream().map(TopicSpec::name).toList());
        assertEquals(List.of(4, 4, 4, 8, 4, 4), specs.stream().map(TopicSpec::partitions).toList());
        FlashTopics topics = new FlashTopics(new PlainAvroSerdes());
        assertEquals("flash.fw.slurm-lab.tasks", topics.frameworkTasks("slurm-lab").name());
        assertEquals("flash.fw.slurm-lab.node-events", topics.frameworkNodeEvents("slurm-lab").name());
    }
}
