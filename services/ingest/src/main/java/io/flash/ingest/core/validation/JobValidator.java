package io.flash.ingest.core.validation;

import io.flash.common.store.ObjectLocation;
import io.flash.common.units.Quantities;
import io.flash.schema.*;
import java.util.*;
import java.util.regex.Pattern;

import static io.flash.ingest.core.validation.Reasons.error;

/**
 * Checks a submission and turns it into the normalised {@link JobAccepted}: units parsed, commands as
 * argv, defaults filled in. Collects every problem, each naming its field path, instead of stopping at
 * the first.
 */
public final class JobValidator {

    private static final Pattern TASK_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,62}");
    private final Limits limits;

    public JobValidator(Limits limits) {
        this.limits = limits;
    }

    public ValidationResult validate(JobSubmission job, String jobId, String submissionId, long now) {
        return validate(job, jobId, submissionId, now, Optional.empty());
    }

    /** @param largest the largest node any framework reported, when one has */
    public ValidationResult validate(JobSubmission job, String jobId, String submissionId, long now,
                                     Optional<LargestNode> largest) {
        List<FieldError> errors = new ArrayList<>();
        if (job.getName() == null || job.getName().isBlank()) {
            errors.add(error("name", "required: give the job a name"));
        }
        FailureMode failureMode = failureMode(job.getFailureMode(), errors);
        String store = store(job.getStore(), errors);
        Long cacheMaxAge = RunRules.cacheMaxAge(job.getCacheMaxAge(), errors);
        List<TaskSpec> specs = job.getTasks() == null ? List.of() : job.getTasks();
        if (specs.isEmpty()) {
            errors.add(error("tasks", "a job needs at least one task"));
        } else if (specs.size() > limits.maxTasks()) {
            errors.add(error("tasks", specs.size() + " tasks is more than the limit of " + limits.maxTasks()));
        }
        Map<String, Integer> indexByName = taskNames(specs, errors);
        List<TaskDefinition> tasks = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            TaskDefinition task = task(specs.get(i), "tasks[" + i + "].", indexByName, errors);
            task.setStore(store);
            task.setCacheMaxAgeSeconds(cacheMaxAge);
            if (task.getCache() == null) task.setCache(job.getCache());
            tasks.add(task);
            String path = "tasks[" + i + "].resources.";
            largest.ifPresent(l -> ResourceRules.fitsLargest(task.getResources(), l, path, errors));
        }
        if (errors.isEmpty()) {
            DependencyCycles.find(tasks).ifPresent(cycle -> errors.add(error(
                    "tasks[" + indexByName.get(cycle.get(0)) + "].dependsOn",
                    "dependency cycle: " + String.join(" -> ", cycle))));
        }
        if (!errors.isEmpty()) {
            return ValidationResult.rejected(errors);
        }
        return ValidationResult.accepted(JobAccepted.newBuilder()
                .setJobId(jobId)
                .setSubmissionId(submissionId)
                .setName(job.getName().trim())
                .setOwner(blankTo(job.getOwner(), "anonymous"))
                .setQueue(blankTo(job.getQueue(), "default"))
                .setPriority(job.getPriority())
                .setLabels(job.getLabels() == null ? Map.of() : job.getLabels())
                .setFailureMode(failureMode)
                .setTasks(tasks)
                .setAcceptedAt(now)
                .build());
    }

    private static FailureMode failureMode(String given, List<FieldError> errors) {
        if (given == null || given.isBlank()) return FailureMode.STOP;
        return switch (given.trim().toLowerCase(Locale.ROOT)) {
            case "stop" -> FailureMode.STOP;
            case "continue" -> FailureMode.CONTINUE;
            default -> {
                errors.add(error("failureMode", "'" + given + "' is not one of stop, continue"));
                yield FailureMode.STOP;
            }
        };
    }

    /** The job's object store prefix (s3://bucket/prefix), normalised, or null for none. */
    private static String store(String given, List<FieldError> errors) {
        if (given == null || given.isBlank()) return null;
        try {
            return ObjectLocation.parsePrefix(given.strip()).toString();
        } catch (IllegalArgumentException e) {
            errors.add(error("store", e.getMessage()));
            return null;
        }
    }

    /** Each valid, unique task name and its index. */
    private static Map<String, Integer> taskNames(List<TaskSpec> specs, List<FieldError> errors) {
        Map<String, Integer> indexByName = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            String name = specs.get(i).getName();
            if (name == null || !TASK_NAME.matcher(name).matches()) {
                errors.add(error("tasks[" + i + "].name", "'" + name + "' is not a task name: use 1-63 letters, digits, '-' or '_', starting with a letter or digit"));
            } else if (indexByName.putIfAbsent(name, i) != null) {
                errors.add(error("tasks[" + i + "].name", "duplicate task name '" + name + "' (also tasks[" + indexByName.get(name) + "])"));
            }
        }
        return indexByName;
    }

    /** One task, section by section (ContainerRules, ResourceRules, RunRules, FileRules), into its normalised definition. */
    private TaskDefinition task(TaskSpec spec, String path, Map<String, Integer> names, List<FieldError> errors) {
        String image = ContainerRules.checkedImage(spec.getImage(), path + "image", errors);
        List<String> command = ContainerRules.argv(spec.getCommand(), spec.getShell(), path + "command", errors);
        ContainerRules.env(spec.getEnv(), path + "env", errors);
        ContainerRules.workdir(spec.getWorkdir(), path + "workdir", errors);
        ResourceRules.Resources resources = ResourceRules.resources(spec.getResources(), limits, path, errors);
        boolean requireLocality = RunRules.requireLocality(spec.getLocality(), path, errors);
        boolean spotAllowed = RunRules.spotAllowed(spec.getSpot(), path, errors);
        int maxAttempts = RunRules.maxAttempts(spec.getMaxAttempts(), limits, path, errors);
        Long timeout = RunRules.timeout(spec.getTimeout(), path, errors);
        long backoff = RunRules.backoff(spec.getBackoff(), path, errors);
        RunRules.exitCodes(spec.getRetryOnExitCodes(), path + "retryOnExitCodes", errors);
        RunRules.exitCodes(spec.getFailOnExitCodes(), path + "failOnExitCodes", errors);
        Scatter scatter = spec.getScatter() == null ? null : scatter(spec.getScatter(), path + "scatter", errors);
        Stream stream = spec.getStream() == null ? null : stream(spec.getStream(), path + "stream", errors);
        if (stream != null && scatter != null) {
            errors.add(error(path + "stream", "cannot be combined with scatter yet: scatter over a list of prefixes and stream within each"));
        }
        List<String> outputs = workspacePaths(spec.getOutputs(), path + "outputs", false, errors);
        List<String> inputs = workspacePaths(spec.getInputs(), path + "inputs", true, errors);
        List<String> deps = RunRules.dependsOn(spec, names.keySet(), path, errors);
        return TaskDefinition.newBuilder()
                .setName(spec.getName() == null ? "" : spec.getName())
                .setImage(image)
                .setCommand(command)
                .setEnv(spec.getEnv() == null ? Map.of() : spec.getEnv())
                .setWorkdir(spec.getWorkdir())
                .setResources(resources.capacity())
                .setCpuRequested(resources.cpuRequested())
                .setMemoryRequested(resources.memoryRequested())
                .setDiskType(resources.diskType())
                .setNetwork(resources.network())
                .setDependsOn(deps)
                .setOutputs(outputs)
                .setInputs(inputs)
                .setMounts(FileRules.mounts(spec.getMounts(), path + "mounts", errors))
                .setFetches(FileRules.fetches(spec.getFetches(), path + "fetches", errors))
                .setUploads(FileRules.uploads(spec.getUploads(), path + "uploads", errors))
                .setStdoutTo(FileRules.redirect(spec.getStdoutTo(), path + "stdoutTo", errors))
                .setStderrTo(FileRules.redirect(spec.getStderrTo(), path + "stderrTo", errors))
                .setMaxAttempts(maxAttempts)
                .setRetryOnExitCodes(spec.getRetryOnExitCodes())
                .setFailOnExitCodes(spec.getFailOnExitCodes())
                .setContinueOnFailure(spec.getContinueOnFailure())
                .setBackoffSeconds(backoff)
                .setScatter(scatter)
                .setNodeLabels(spec.getNodeLabels())
                .setTimeoutSeconds(timeout)
                .setFramework(spec.getFramework() == null || spec.getFramework().isBlank() ? null : spec.getFramework().trim())
                .setRequireLocality(requireLocality)
                .setSpotAllowed(spotAllowed)
                .setStream(stream)
                .setCache(spec.getCache())
                .build();
    }

    /** Paths in the job workspace, made relative to it; inputs may also be s3://bucket/key objects. */
    private static List<String> workspacePaths(List<String> paths, String field, boolean objectsAllowed, List<FieldError> errors) {
        List<String> relative = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            if (!ContainerRules.pathIsPrintable(paths.get(i), field + "[" + i + "]", errors)) continue;
            String raw = paths.get(i).strip();
            if (raw.matches("[a-zA-Z][a-zA-Z0-9+.-]*://.*")) {
                if (!objectsAllowed) {
                    errors.add(error(field + "[" + i + "]", "'" + raw + "': outputs are paths in the job workspace; "
                            + "set the job's store (store: s3://bucket/prefix) to have them uploaded"));
                } else if (!ObjectLocation.isObjectUri(raw)) {
                    errors.add(error(field + "[" + i + "]", "'" + raw + "': only s3:// objects can be fetched"));
                } else {
                    try {
                        relative.add(ObjectLocation.parse(raw).toString());
                    } catch (IllegalArgumentException e) {
                        errors.add(error(field + "[" + i + "]", e.getMessage()));
                    }
                }
                continue;
            }
            String path = raw.startsWith("/workspace/") ? raw.substring("/workspace/".length()) : raw;
            if (path.isEmpty() || path.startsWith("/") || Arrays.asList(path.split("/")).contains("..")) {
                errors.add(error(field + "[" + i + "]", "'" + raw + "' is not a path inside the job workspace "
                        + "(write it relative to /workspace, e.g. results/sample.vcf, without '..')"));
            } else {
                relative.add(path);
            }
        }
        return relative;
    }

    /** Streaming mode: every object under an s3:// prefix, a small window of them on the node at a time. */
    private static Stream stream(StreamSpec spec, String path, List<FieldError> errors) {
        String from = spec.getFrom() == null ? "" : spec.getFrom().strip();
        try {
            from = ObjectLocation.parsePrefix(from).toString();
        } catch (IllegalArgumentException e) {
            errors.add(error(path + ".from", e.getMessage()));
        }
        int window = spec.getWindow() == null ? 2 : spec.getWindow();
        if (window < 1 || window > 64) {
            errors.add(error(path + ".window", window + " is not between 1 and 64 (objects fetched ahead of the one being processed)"));
        }
        Long maxDisk = null;
        if (spec.getMaxDisk() != null && !spec.getMaxDisk().isBlank()) {
            try {
                maxDisk = Quantities.bytes(spec.getMaxDisk());
            } catch (IllegalArgumentException e) {
                errors.add(error(path + ".maxDisk", e.getMessage()));
            }
        }
        return Stream.newBuilder().setFrom(from).setWindow(window).setMaxDiskBytes(maxDisk).build();
    }

    private Scatter scatter(ScatterSpec spec, String path, List<FieldError> errors) {
        boolean list = !spec.getItems().isEmpty();
        boolean range = spec.getFrom() != null || spec.getTo() != null;
        if (list == range) {
            errors.add(error(path, "give either items (a list) or from and to (a range of numbers)"));
            return null;
        }
        long count;
        if (range) {
            if (spec.getFrom() == null || spec.getTo() == null || spec.getTo() <= spec.getFrom()) {
                errors.add(error(path, "a range needs from and to with to > from (to is one past the last number)"));
                return null;
            }
            count = spec.getTo() - spec.getFrom();
        } else {
            count = spec.getItems().size();
        }
        Scatter.Builder scatter = Scatter.newBuilder().setItems(spec.getItems()).setFrom(spec.getFrom()).setTo(spec.getTo());
        if (spec.getTargetShardDuration() != null) {
            return byDuration(spec, count, scatter, path, errors);
        }
        if (spec.getShardSize() == null) {
            errors.add(error(path + ".shardSize", "required: how many items (or numbers) each shard gets, "
                    + "or targetShardDuration (e.g. 40m) to have Flash size them from earlier runs"));
            return null;
        }
        if (spec.getShardSize() < 1) {
            errors.add(error(path + ".shardSize", spec.getShardSize() + ": must be 1 or more"));
            return null;
        }
        long shards = (count + spec.getShardSize() - 1) / spec.getShardSize();
        if (shards > limits.maxShards()) {
            errors.add(error(path + ".shardSize", count + " items in shards of " + spec.getShardSize() + " make " + shards
                    + " shards, more than the limit of " + limits.maxShards() + "; use a larger shardSize"));
            return null;
        }
        return scatter.setShardSize(spec.getShardSize()).setShards((int) shards).build();
    }

    /**
     * Shards sized by the planner to run about this long each: here only the duration is checked,
     * and the shard size is provisional (the largest the shard limit allows, all in one shard at most).
     */
    private Scatter byDuration(ScatterSpec spec, long count, Scatter.Builder scatter, String path, List<FieldError> errors) {
        if (spec.getShardSize() != null) {
            errors.add(error(path + ".targetShardDuration", "give either shardSize or targetShardDuration, not both"));
            return null;
        }
        long seconds;
        try {
            seconds = Quantities.seconds(spec.getTargetShardDuration());
        } catch (IllegalArgumentException e) {
            errors.add(error(path + ".targetShardDuration", e.getMessage()));
            return null;
        }
        if (seconds < 1) {
            errors.add(error(path + ".targetShardDuration", "'" + spec.getTargetShardDuration() + "' is no time at all: give at least 1s"));
            return null;
        }
        long size = Math.max(1, (count + limits.maxShards() - 1) / limits.maxShards());
        return scatter.setShardSize((int) Math.min(Integer.MAX_VALUE, size)).setShards((int) ((count + size - 1) / size))
                .setTargetShardSeconds(seconds).build();
    }

    private static String blankTo(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
