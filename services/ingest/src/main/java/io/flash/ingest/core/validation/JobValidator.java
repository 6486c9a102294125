package io.flash.ingest.core.validation;

import io.flash.common.store.ObjectLocation;
import io.flash.common.units.Quantities;
import io.flash.schema.*;
import java.util.*;
import java.util.regex.Pattern;

/**
 * Checks a submission and turns it into the normalised {@link JobAccepted}: units parsed, commands as
 * argv, defaults filled in. Collects every problem, each naming its field path, instead of stopping at
 * the first.
 */
public final class JobValidator {

    private static final Pattern TASK_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,62}");
    // [registry[:port]/]path[:tag][@sha256:digest], lower-case path components as Docker requires.
    private static final Pattern IMAGE = Pattern.compile(
            "(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                    + "(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?");

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
        FailureMode failureMode = FailureMode.STOP;
        if (job.getFailureMode() != null && !job.getFailureMode().isBlank()) {
            switch (job.getFailureMode().trim().toLowerCase(Locale.ROOT)) {
                case "stop" -> failureMode = FailureMode.STOP;
                case "continue" -> failureMode = FailureMode.CONTINUE;
                default -> errors.add(error("failureMode", "'" + job.getFailureMode() + "' is not one of stop, continue"));
            }
        }
        String store = null;
        if (job.getStore() != null && !job.getStore().isBlank()) {
            try {
                store = ObjectLocation.parsePrefix(job.getStore().strip()).toString();
            } catch (IllegalArgumentException e) {
                errors.add(error("store", e.getMessage()));
            }
        }
        List<TaskSpec> specs = job.getTasks() == null ? List.of() : job.getTasks();
        if (specs.isEmpty()) {
            errors.add(error("tasks", "a job needs at least one task"));
        } else if (specs.size() > limits.maxTasks()) {
            errors.add(error("tasks", specs.size() + " tasks is more than the limit of " + limits.maxTasks()));
        }
        Map<String, Integer> indexByName = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            String name = specs.get(i).getName();
            if (name == null || !TASK_NAME.matcher(name).matches()) {
                errors.add(error("tasks[" + i + "].name", "'" + name + "' is not a task name: use 1-63 letters, digits, '-' or '_', starting with a letter or digit"));
            } else if (indexByName.putIfAbsent(name, i) != null) {
                errors.add(error("tasks[" + i + "].name", "duplicate task name '" + name + "' (also tasks[" + indexByName.get(name) + "])"));
            }
        }
        List<TaskDefinition> tasks = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            TaskDefinition task = task(specs.get(i), "tasks[" + i + "].", indexByName, errors);
            task.setStore(store);
            tasks.add(task);
            String path = "tasks[" + i + "].resources.";
            largest.ifPresent(l -> {
                if (task.getResources().getCpu() > l.capacity().getCpu() + 1e-9) {
                    errors.add(error(path + "cpu", task.getResources().getCpu() + " cores is more than any node offers (largest: "
                            + l.capacity().getCpu() + " cores, on " + l.cpuFramework() + ")"));
                }
                if (task.getResources().getDiskBytes() > l.capacity().getDiskBytes()) {
                    errors.add(error(path + "disk", Quantities.format(task.getResources().getDiskBytes()) + " of disk is more than any "
                            + "node offers (largest: " + Quantities.format(l.capacity().getDiskBytes()) + ")"));
                }
                if (task.getResources().getGpus() > l.capacity().getGpus()) {
                    errors.add(error(path + "gpus", task.getResources().getGpus() + " GPUs is more than any node offers (largest: "
                            + l.capacity().getGpus() + ")"));
                }
                if (task.getResources().getMemoryBytes() > l.capacity().getMemoryBytes()) {
                    errors.add(error(path + "memory", Quantities.format(task.getResources().getMemoryBytes())
                            + " is more than any node offers (largest: " + Quantities.format(l.capacity().getMemoryBytes())
                            + ", on " + l.memoryFramework() + ")"));
                }
            });
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

    private TaskDefinition task(TaskSpec spec, String path, Map<String, Integer> names, List<FieldError> errors) {
        String image = spec.getImage() == null ? "" : spec.getImage();
        int before = errors.size();
        ContainerRules.image(spec.getImage(), path + "image", errors);
        if (image.isBlank()) {
            errors.add(error(path + "image", "required: the container image to run, e.g. flash/shell:1"));
        } else if (errors.size() == before && !IMAGE.matcher(image).matches()) {
            errors.add(error(path + "image", "'" + image + "' is not a valid image reference (expected [registry/]name[:tag][@sha256:digest], lower-case name)"));
        }
        List<String> command = new ArrayList<>();
        boolean hasArgv = spec.getCommand() != null && !spec.getCommand().isEmpty();
        boolean hasShell = spec.getShell() != null && !spec.getShell().isBlank();
        if (hasArgv && hasShell) {
            errors.add(error(path + "command", "give either command (argv list) or shell (a command line), not both"));
        } else if (hasShell) {
            command.addAll(List.of("/bin/sh", "-c", spec.getShell()));
        } else if (hasArgv && !spec.getCommand().get(0).isBlank()) {
            command.addAll(spec.getCommand());
        } else {
            errors.add(error(path + "command", "empty: give command (an argv list) or shell (a command line run with /bin/sh -c)"));
        }
        ContainerRules.command(spec.getCommand(), spec.getShell(), path + "command", errors);
        ContainerRules.env(spec.getEnv(), path + "env", errors);
        ContainerRules.workdir(spec.getWorkdir(), path + "workdir", errors);

        ResourceRequest req = spec.getResources() == null ? new ResourceRequest() : spec.getResources();
        double cpu = limits.defaultCpu();
        if (req.getCpu() != null) {
            cpu = req.getCpu();
            if (!(cpu > 0)) {
                errors.add(error(path + "resources.cpu", cpu + " cores: must be more than 0 (fractions such as 0.5 are fine)"));
            } else if (cpu > limits.maxCpu()) {
                errors.add(error(path + "resources.cpu", cpu + " cores is more than the limit of " + limits.maxCpu()));
            }
        }
        long memory = limits.defaultMemoryBytes();
        if (req.getMemory() != null) {
            try {
                memory = Quantities.bytes(req.getMemory());
                if (memory < Limits.MIN_MEMORY_BYTES) {
                    errors.add(error(path + "resources.memory", "'" + req.getMemory() + "' is " + memory
                            + " bytes, below the minimum of 4Mi; did you mean " + req.getMemory().trim() + "Mi?"));
                } else if (memory > limits.maxMemoryBytes()) {
                    errors.add(error(path + "resources.memory", "'" + req.getMemory() + "' is more than the limit of "
                            + Quantities.format(limits.maxMemoryBytes())));
                }
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "resources.memory", e.getMessage()));
            }
        }
        long disk = 0;
        if (req.getDisk() != null) {
            try {
                disk = Quantities.bytes(req.getDisk());
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "resources.disk", e.getMessage()));
            }
        }
        DiskType diskType = DiskType.ANY;
        if (req.getDiskType() != null) {
            try {
                diskType = DiskType.valueOf(req.getDiskType().trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "resources.diskType", "'" + req.getDiskType() + "' is not one of ssd, hdd, any"));
            }
        }
        boolean requireLocality = false;
        if (spec.getLocality() != null && !spec.getLocality().isBlank()) {
            switch (spec.getLocality().trim().toLowerCase(Locale.ROOT)) {
                case "required" -> requireLocality = true;
                case "preferred" -> requireLocality = false;
                default -> errors.add(error(path + "locality", "'" + spec.getLocality() + "' is not one of preferred, required"));
            }
        }
        NetworkMode network = NetworkMode.NONE;
        if (req.getNetwork() != null) {
            try {
                network = NetworkMode.valueOf(req.getNetwork().trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "resources.network", "'" + req.getNetwork() + "' is not one of none, bridge"));
            }
        }
        int gpus = req.getGpus() == null ? 0 : req.getGpus();
        if (gpus < 0 || gpus > Limits.MAX_GPUS) {
            errors.add(error(path + "resources.gpus", gpus + ": must be between 0 and " + Limits.MAX_GPUS));
        }
        int maxAttempts = spec.getMaxAttempts() == null ? 1 : spec.getMaxAttempts();
        if (maxAttempts < 1 || maxAttempts > limits.maxAttempts()) {
            errors.add(error(path + "maxAttempts", maxAttempts + ": must be between 1 and " + limits.maxAttempts()));
        }
        Long timeout = null;
        if (spec.getTimeout() != null) {
            try {
                timeout = Quantities.seconds(spec.getTimeout());
                if (timeout < 1) {
                    errors.add(error(path + "timeout", "'" + spec.getTimeout() + "' is no time at all: give at least 1s, "
                            + "or leave timeout out for none"));
                }
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "timeout", e.getMessage()));
            }
        }
        Long backoff = 0L;
        if (spec.getBackoff() != null) {
            try {
                backoff = Quantities.seconds(spec.getBackoff());
            } catch (IllegalArgumentException e) {
                errors.add(error(path + "backoff", e.getMessage()));
            }
        }
        checkExitCodes(spec.getRetryOnExitCodes(), path + "retryOnExitCodes", errors);
        checkExitCodes(spec.getFailOnExitCodes(), path + "failOnExitCodes", errors);
        Scatter scatter = spec.getScatter() == null ? null : scatter(spec.getScatter(), path + "scatter", errors);
        Stream stream = spec.getStream() == null ? null : stream(spec.getStream(), path + "stream", errors);
        if (stream != null && scatter != null) {
            errors.add(error(path + "stream", "cannot be combined with scatter yet: scatter over a list of prefixes and stream within each"));
        }
        List<String> outputs = workspacePaths(spec.getOutputs(), path + "outputs", false, errors);
        List<String> inputs = workspacePaths(spec.getInputs(), path + "inputs", true, errors);
        List<String> deps = spec.getDependsOn() == null ? List.of() : spec.getDependsOn();
        for (int d = 0; d < deps.size(); d++) {
            String dep = deps.get(d);
            if (dep.equals(spec.getName())) {
                errors.add(error(path + "dependsOn[" + d + "]", "a task cannot depend on itself"));
            } else if (!names.containsKey(dep)) {
                errors.add(error(path + "dependsOn[" + d + "]", "no task named '" + dep + "' in this job; known tasks: " + new TreeSet<>(names.keySet())));
            }
        }
        return TaskDefinition.newBuilder()
                .setName(spec.getName() == null ? "" : spec.getName())
                .setImage(image)
                .setCommand(command)
                .setEnv(spec.getEnv() == null ? Map.of() : spec.getEnv())
                .setWorkdir(spec.getWorkdir())
                .setResources(new Capacity(cpu, memory, disk, gpus))
                .setCpuRequested(req.getCpu() != null)
                .setMemoryRequested(req.getMemory() != null)
                .setDiskType(diskType)
                .setNetwork(network)
                .setDependsOn(new ArrayList<>(new LinkedHashSet<>(deps)))
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
                .setStream(stream)
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

    private static void checkExitCodes(List<Integer> codes, String path, List<FieldError> errors) {
        for (int i = 0; i < codes.size(); i++) {
            if (codes.get(i) < 1 || codes.get(i) > 255) {
                errors.add(error(path + "[" + i + "]", codes.get(i) + " is not a failure exit code (1-255)"));
            }
        }
    }

    private Scatter scatter(ScatterSpec spec, String path, List<FieldError> errors) {
        boolean list = !spec.getItems().isEmpty();
        boolean range = spec.getFrom() != null || spec.getTo() != null;
        if (list == range) {
            errors.add(error(path, "give either items (a list) or from and to (a range of numbers)"));
            return null;
        }
        if (spec.getShardSize() == null) {
            errors.add(error(path + ".shardSize", "required: how many items (or numbers) each shard gets"));
            return null;
        }
        if (spec.getShardSize() < 1) {
            errors.add(error(path + ".shardSize", spec.getShardSize() + ": must be 1 or more"));
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
        long shards = (count + spec.getShardSize() - 1) / spec.getShardSize();
        if (shards > limits.maxShards()) {
            errors.add(error(path + ".shardSize", count + " items in shards of " + spec.getShardSize() + " make " + shards
                    + " shards, more than the limit of " + limits.maxShards() + "; use a larger shardSize"));
            return null;
        }
        return Scatter.newBuilder().setItems(spec.getItems()).setFrom(spec.getFrom()).setTo(spec.getTo())
                .setShardSize(spec.getShardSize()).setShards((int) shards).build();
    }

    private static String blankTo(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    /** Reasons quote what the user wrote: control characters are shown escaped, never passed on. */
    private static FieldError error(String field, String reason) {
        return new FieldError(field, ContainerRules.escaped(reason));
    }
}
