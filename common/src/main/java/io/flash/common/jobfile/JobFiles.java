package io.flash.common.jobfile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.flash.schema.JobSubmission;
import io.flash.schema.ResourceRequest;
import io.flash.schema.ScatterSpec;
import io.flash.schema.StreamSpec;
import io.flash.schema.TaskSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.Schema;

/**
 * Reads a job file (YAML or JSON; JSON is YAML) into the {@link JobSubmission} users publish.
 * Only the shape is checked here; ingest validates the meaning, so every client gets the same rules.
 */
public final class JobFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /**
     * Job-file fields are the model's own ({@code schemas}: JobSubmission, TaskSpec and their parts), so a field added
     * there is a field here; JobFilesTest proves each one is read. Task fields the Kafka topic and TES take but job
     * files do not yet (docs/job-format.md) are left out, and {@code scatter.file} is the file's own shorthand for items.
     */
    private static final Set<String> TOPIC_ONLY_TASK_FIELDS = Set.of("mounts", "fetches", "uploads", "stdoutTo", "stderrTo");
    static final Set<String> JOB_FIELDS = fields(JobSubmission.getClassSchema(), Set.of(), Set.of());
    static final Set<String> TASK_FIELDS = fields(TaskSpec.getClassSchema(), TOPIC_ONLY_TASK_FIELDS, Set.of());
    static final Set<String> SCATTER_FIELDS = fields(ScatterSpec.getClassSchema(), Set.of(), Set.of("file"));
    static final Set<String> STREAM_FIELDS = fields(StreamSpec.getClassSchema(), Set.of(), Set.of());
    static final Set<String> RESOURCE_FIELDS = fields(ResourceRequest.getClassSchema(), Set.of(), Set.of());

    private JobFiles() {
    }

    private static Set<String> fields(Schema schema, Set<String> without, Set<String> plus) {
        Set<String> names = new TreeSet<>(plus);
        schema.getFields().stream().map(Schema.Field::name).filter(name -> !without.contains(name)).forEach(names::add);
        return Set.copyOf(names);
    }

    public static JobSubmission read(Path file) throws IOException, JobFileException {
        return parse(Files.readString(file), file.toAbsolutePath().getParent());
    }

    /** A job file's text; {@code scatter.file} is not allowed (there is no directory to read it from). */
    public static JobSubmission parse(String text) throws JobFileException {
        return parse(text, null);
    }

    /** @param baseDir where {@code scatter.file} paths are read from, or null to refuse them */
    public static JobSubmission parse(String text, Path baseDir) throws JobFileException {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            throw new JobFileException("not valid YAML or JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null || !root.isObject()) {
            throw new JobFileException("(file): expected a mapping with name and tasks");
        }
        checkFields(root, JOB_FIELDS, "");
        JobSubmission.Builder job = JobSubmission.newBuilder()
                .setSubmissionId(text(root, "submissionId", ""))
                .setName(requiredText(root, "name", ""))
                .setOwner(text(root, "owner", ""))
                .setQueue(text(root, "queue", ""))
                .setPriority(root.has("priority") ? integer(root.get("priority"), "priority") : 0)
                .setLabels(stringMap(root.get("labels"), "labels"))
                .setFailureMode(text(root, "failureMode", ""))
                .setStore(text(root, "store", ""))
                .setCache(root.has("cache") ? bool(root.get("cache"), "cache") : null)
                .setCacheMaxAge(text(root, "cacheMaxAge", ""));
        List<TaskSpec> tasks = new ArrayList<>();
        JsonNode taskNodes = root.get("tasks");
        if (taskNodes != null && !taskNodes.isArray()) {
            throw new JobFileException("tasks: expected a list of tasks");
        }
        if (taskNodes != null) {
            for (int i = 0; i < taskNodes.size(); i++) {
                tasks.add(task(taskNodes.get(i), "tasks[" + i + "].", baseDir));
            }
        }
        return job.setTasks(tasks).build();
    }

    private static TaskSpec task(JsonNode node, String path, Path baseDir) throws JobFileException {
        if (!node.isObject()) {
            throw new JobFileException(path.substring(0, path.length() - 1) + ": expected a mapping");
        }
        checkFields(node, TASK_FIELDS, path);
        TaskSpec.Builder task = TaskSpec.newBuilder()
                .setName(requiredText(node, "name", path))
                .setImage(text(node, "image", path) == null ? "" : text(node, "image", path))
                .setShell(text(node, "shell", path))
                .setEnv(stringMap(node.get("env"), path + "env"))
                .setWorkdir(text(node, "workdir", path))
                .setDependsOn(stringList(node.get("dependsOn"), path + "dependsOn"))
                .setOutputs(stringList(node.get("outputs"), path + "outputs"))
                .setInputs(stringList(node.get("inputs"), path + "inputs"))
                .setTimeout(text(node, "timeout", path))
                .setFramework(text(node, "framework", path))
                .setLocality(text(node, "locality", path))
                .setSpot(text(node, "spot", path))
                .setMaxAttempts(node.has("maxAttempts") ? integer(node.get("maxAttempts"), path + "maxAttempts") : null)
                .setRetryOnExitCodes(integers(node.get("retryOnExitCodes"), path + "retryOnExitCodes"))
                .setFailOnExitCodes(integers(node.get("failOnExitCodes"), path + "failOnExitCodes"))
                .setContinueOnFailure(node.has("continueOnFailure") && bool(node.get("continueOnFailure"), path + "continueOnFailure"))
                .setCache(node.has("cache") ? bool(node.get("cache"), path + "cache") : null)
                .setBackoff(text(node, "backoff", path))
                .setNodeLabels(stringMap(node.get("nodeLabels"), path + "nodeLabels"))
                .setStream(stream(section(node, "stream", path, "from, and optionally window and maxDisk"), path + "stream."))
                .setScatter(scatter(section(node, "scatter", path, "items or from/to, and shardSize"), path + "scatter.", baseDir))
                .setResources(resources(section(node, "resources", path, "cpu, memory, disk, diskType, network, gpus"),
                        path + "resources."));
        command(node.get("command"), task, path);
        return task.build();
    }

    /** A mapping inside a task, or null when it is absent. */
    private static JsonNode section(JsonNode task, String field, String path, String expected) throws JobFileException {
        JsonNode section = task.get(field);
        if (section == null || section.isNull()) {
            return null;
        }
        if (!section.isObject()) {
            throw new JobFileException(path + field + ": expected a mapping (" + expected + ")");
        }
        return section;
    }

    /** A command written as one string is a shell line, the way people type it; a list is argv. */
    private static void command(JsonNode command, TaskSpec.Builder task, String path) throws JobFileException {
        if (command != null && command.isTextual()) {
            if (task.getShell() != null) {
                throw new JobFileException(path + "command: give either command or shell, not both");
            }
            task.setShell(command.asText());
            task.setCommand(List.of());
        } else {
            task.setCommand(stringList(command, path + "command"));
        }
    }

    private static StreamSpec stream(JsonNode stream, String path) throws JobFileException {
        if (stream == null) {
            return null;
        }
        checkFields(stream, STREAM_FIELDS, path);
        return StreamSpec.newBuilder()
                .setFrom(requiredText(stream, "from", path))
                .setWindow(stream.has("window") ? integer(stream.get("window"), path + "window") : null)
                .setMaxDisk(text(stream, "maxDisk", path))
                .build();
    }

    private static ScatterSpec scatter(JsonNode scatter, String path, Path baseDir) throws JobFileException {
        if (scatter == null) {
            return null;
        }
        checkFields(scatter, SCATTER_FIELDS, path);
        List<String> items = stringList(scatter.get("items"), path + "items");
        if (scatter.has("file")) {
            if (scatter.has("items")) {
                throw new JobFileException(path + "file: give either file or items, not both");
            }
            items = lines(scatter.get("file").asText(), baseDir, path + "file");
        }
        return ScatterSpec.newBuilder()
                .setItems(items)
                .setFrom(scatter.has("from") ? whole(scatter.get("from"), path + "from") : null)
                .setTo(scatter.has("to") ? whole(scatter.get("to"), path + "to") : null)
                .setShardSize(scatter.has("shardSize") ? integer(scatter.get("shardSize"), path + "shardSize") : null)
                .setTargetShardDuration(text(scatter, "targetShardDuration", path))
                .build();
    }

    private static ResourceRequest resources(JsonNode resources, String path) throws JobFileException {
        if (resources == null) {
            return null;
        }
        checkFields(resources, RESOURCE_FIELDS, path);
        return ResourceRequest.newBuilder()
                .setCpu(resources.has("cpu") ? number(resources.get("cpu"), path + "cpu") : null)
                .setMemory(scalar(resources.get("memory")))
                .setDisk(scalar(resources.get("disk")))
                .setDiskType(scalar(resources.get("diskType")))
                .setNetwork(scalar(resources.get("network")))
                .setGpus(resources.has("gpus") ? integer(resources.get("gpus"), path + "gpus") : null)
                .build();
    }

    private static void checkFields(JsonNode node, Set<String> allowed, String path) throws JobFileException {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new JobFileException(path + name + ": unknown field; expected one of " + new TreeSet<>(allowed));
            }
        }
    }

    private static String requiredText(JsonNode node, String field, String path) throws JobFileException {
        String value = text(node, field, path);
        if (value == null) {
            throw new JobFileException(path + field + ": required");
        }
        return value;
    }

    private static String text(JsonNode node, String field, String path) throws JobFileException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isValueNode()) {
            throw new JobFileException(path + field + ": expected a single value");
        }
        return value.asText();
    }

    private static String scalar(JsonNode value) {
        return value == null || value.isNull() ? null : value.asText();
    }

    private static Double number(JsonNode value, String path) throws JobFileException {
        if (value.isNumber()) {
            return value.asDouble();
        }
        try {
            return Double.parseDouble(value.asText());
        } catch (NumberFormatException e) {
            throw new JobFileException(path + ": expected a number, got '" + value.asText() + "'");
        }
    }

    private static boolean bool(JsonNode value, String path) throws JobFileException {
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        throw new JobFileException(path + ": expected true or false, got '" + value.asText() + "'");
    }

    private static Integer integer(JsonNode value, String path) throws JobFileException {
        if (value.isIntegralNumber()) {
            return value.asInt();
        }
        throw new JobFileException(path + ": expected a whole number, got '" + value.asText() + "'");
    }

    /** The non-blank lines of a file next to the job file: one scatter item each. */
    private static List<String> lines(String file, Path baseDir, String path) throws JobFileException {
        if (baseDir == null) {
            throw new JobFileException(path + ": a file can only be read from a job file on disk; list the items instead");
        }
        Path resolved = baseDir.resolve(file);
        try (var lines = Files.lines(resolved)) {
            List<String> items = lines.map(String::strip).filter(l -> !l.isEmpty()).toList();
            if (items.isEmpty()) {
                throw new JobFileException(path + ": " + resolved + " has no lines");
            }
            return items;
        } catch (IOException e) {
            throw new JobFileException(path + ": cannot read " + resolved + " (" + e.getMessage() + ")");
        }
    }

    private static Long whole(JsonNode value, String path) throws JobFileException {
        if (value.isIntegralNumber()) {
            return value.asLong();
        }
        throw new JobFileException(path + ": expected a whole number, got '" + value.asText() + "'");
    }

    private static List<Integer> integers(JsonNode node, String path) throws JobFileException {
        List<Integer> list = new ArrayList<>();
        if (node == null || node.isNull()) {
            return list;
        }
        if (!node.isArray()) {
            throw new JobFileException(path + ": expected a list of numbers");
        }
        for (int i = 0; i < node.size(); i++) {
            list.add(integer(node.get(i), path + "[" + i + "]"));
        }
        return list;
    }

    private static Map<String, String> stringMap(JsonNode node, String path) throws JobFileException {
        Map<String, String> map = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return map;
        }
        if (!node.isObject()) {
            throw new JobFileException(path + ": expected a mapping of names to values");
        }
        var fields = node.fields();
        while (fields.hasNext()) {
            var entry = fields.next();
            map.put(entry.getKey(), entry.getValue().asText());
        }
        return map;
    }

    private static List<String> stringList(JsonNode node, String path) throws JobFileException {
        List<String> list = new ArrayList<>();
        if (node == null || node.isNull()) {
            return list;
        }
        if (!node.isArray()) {
            throw new JobFileException(path + ": expected a list");
        }
        for (JsonNode item : node) {
            list.add(item.asText());
        }
        return list;
    }
}
