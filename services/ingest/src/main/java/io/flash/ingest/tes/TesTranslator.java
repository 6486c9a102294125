package io.flash.ingest.tes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.schema.FieldError;
import io.flash.schema.JobSubmission;
import io.flash.schema.ResourceRequest;
import io.flash.schema.TaskSpec;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.*;

/**
 * A TES task as a Flash job: executor {@code i} is task {@code exec-i}, run after {@code exec-(i-1)}
 * in the same job workspace; resources and {@code backend_parameters} become Flash's needs; tags
 * become the job's labels. What Flash cannot run yet is refused with the field path and the
 * reason, never silently dropped (docs/tes.md lists it). The result still goes through ingest's
 * {@code JobValidator}, like every submission.
 */
public final class TesTranslator {

    /**
     * The label that carries the task document as Flash keeps it (what BASIC and FULL return), so
     * that every ingest instance can answer for it from the status topic alone.
     */
    public static final String TASK_LABEL = "ga4gh.tes/task";
    /** Warnings for the task's system_logs: the backend_parameters Flash ignored. */
    public static final String WARNINGS_LABEL = "ga4gh.tes/warnings";
    /** Set when the inputs' contents made the kept document too large and were left out of it. */
    public static final String CONTENT_DROPPED_LABEL = "ga4gh.tes/content-dropped";
    /**
     * The kept document is re-sent with every status update of the job: bounded well below a record.
     * It holds the inputs' contents (at most {@link TesFiles#MAX_CONTENT_BYTES}, so FULL returns what
     * was accepted) and room for the rest and JSON's escapes.
     */
    static final int MAX_TASK_DOCUMENT_BYTES = TesFiles.MAX_CONTENT_BYTES + 128 * 1024;
    /** The document without contents: what is left when a content's escapes would crowd the record. */
    static final int MAX_BARE_DOCUMENT_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** backend_parameters keys Flash understands (case-insensitive), besides {@code node_label.<key>}. */
    public static final List<String> BACKEND_PARAMETERS = List.of("disk_type", "gpus", "network", "framework", "queue",
            "priority", "timeout", "node_label.<key>");

    /**
     * @param built   the job as far as the task describes it, for Flash's validator to judge like any other
     * @param errors  "field.path: reason", one per problem only TES has
     * @param dropped backend_parameters keys Flash does not know, ignored because the task is not strict
     */
    public record Translation(JobSubmission built, List<String> errors, List<String> dropped) {

        /** The job to publish, when the task had no TES problem. */
        public JobSubmission submission() {
            return errors.isEmpty() ? built : null;
        }
    }

    private TesTranslator() {
    }

    public static Translation translate(TesModel.Task task, String submissionId, String owner) {
        List<String> errors = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        refuseNotYetSupported(task, errors);
        List<TesModel.Executor> executors = task.executors() == null ? List.of() : task.executors();
        JobSubmission.Builder job = JobSubmission.newBuilder().setSubmissionId(submissionId).setOwner(owner)
                .setName(task.name() == null || task.name().isBlank() ? "tes-task" : task.name());
        Needs needs = needs(task.resources(), job, errors, dropped);
        TesFiles.Plan files = TesFiles.plan(task, errors);
        List<TaskSpec> specs = new ArrayList<>();
        for (int i = 0; i < executors.size(); i++) {
            TesModel.Executor e = executors.get(i);
            if (e == null) {
                errors.add("executors[" + i + "]: must be an object");
                e = new TesModel.Executor(null, null, null, null, null, null, null, null);
            }
            TaskSpec.Builder spec = TaskSpec.newBuilder().setName("exec-" + i)
                    .setImage(e.image() == null ? "" : e.image())
                    .setCommand(e.command() == null ? List.of() : new ArrayList<>(e.command()))
                    .setEnv(e.env() == null ? new HashMap<>() : new HashMap<>(e.env()))
                    .setWorkdir(e.workdir())
                    .setResources(needs.resources.build())
                    .setNodeLabels(new HashMap<>(needs.nodeLabels))
                    .setTimeout(needs.timeout).setFramework(needs.framework).setSpot(needs.spot)
                    .setMaxAttempts(1) // TES: an executor's non-zero exit is the task's error; infrastructure is still retried
                    .setContinueOnFailure(Boolean.TRUE.equals(e.ignoreError()))
                    .setMounts(files.mounts()).setFetches(files.fetches())
                    .setUploads(i == executors.size() - 1 ? files.uploads() : List.of())
                    .setStdoutTo(TesFiles.redirect(e.stdout())).setStderrTo(TesFiles.redirect(e.stderr()))
                    .setDependsOn(i == 0 ? List.of() : List.of("exec-" + (i - 1)));
            specs.add(spec.build());
        }
        Map<String, String> labels = new TreeMap<>(task.tags() == null ? Map.of() : task.tags());
        labels.keySet().stream().filter(k -> k.startsWith("ga4gh.tes/"))
                .forEach(k -> errors.add("tags." + k + ": the prefix ga4gh.tes/ is kept for Flash's own labels; choose another key"));
        String document = kept(task, dropped, true);
        String bare = kept(task, dropped, false);
        if (bytes(document) > MAX_TASK_DOCUMENT_BYTES) {
            document = bare; // the contents are in the job's fetches; FULL then shows them without
            labels.put(CONTENT_DROPPED_LABEL, "true");
        }
        if (bytes(bare) > MAX_BARE_DOCUMENT_BYTES) {
            errors.add("(body): the task document is over " + MAX_BARE_DOCUMENT_BYTES / 1024
                    + " KiB without input contents; put long scripts in an input file");
        }
        labels.put(TASK_LABEL, document);
        if (!dropped.isEmpty()) {
            labels.put(WARNINGS_LABEL, "backend_parameters unknown to Flash, ignored: " + String.join(", ", dropped));
        }
        job.setLabels(labels).setTasks(specs);
        return new Translation(job.build(), errors, dropped);
    }

    /**
     * Everything wrong with a TES task, in TES terms: what only TES has (its resources, files, tags), then what
     * Flash's validator — the one judge of every job, whichever door it came in by — found in the job it became.
     */
    public static List<String> problems(Translation translation, List<FieldError> validated) {
        List<String> problems = new ArrayList<>(translation.errors());
        validated.stream().map(TesTranslator::inTesTerms).forEach(problems::add);
        return problems;
    }

    /** The validator speaks of Flash's tasks; executor i is task exec-i. */
    private static String inTesTerms(FieldError e) {
        String field = e.getField().replaceFirst("^tasks(?=\\[|$)", "executors");
        return field + ": " + e.getReason();
    }

    private static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void refuseNotYetSupported(TesModel.Task task, List<String> errors) {
        List<TesModel.Executor> executors = task.executors() == null ? List.of() : task.executors();
        for (int i = 0; i < executors.size(); i++) {
            TesModel.Executor e = executors.get(i);
            if (e != null && e.stdin() != null) errors.add("executors[" + i + "].stdin: not supported by Flash yet (docs/tes.md)");
        }
    }

    /**
     * The document as BASIC returns it: what the client sent, without the fields the server sets
     * and without the backend_parameters Flash does not know (the spec: not stored, not returned);
     * input contents only while the whole document stays under {@link #MAX_TASK_DOCUMENT_BYTES}.
     */
    private static String kept(TesModel.Task task, List<String> dropped, boolean withContent) {
        TesModel.Resources r = task.resources();
        if (r != null && r.backendParameters() != null && !dropped.isEmpty()) {
            Map<String, String> known = new TreeMap<>(r.backendParameters());
            dropped.forEach(known::remove);
            r = new TesModel.Resources(r.cpuCores(), r.preemptible(), r.ramGb(), r.diskGb(), r.zones(), known,
                    r.backendParametersStrict());
        }
        List<TesModel.Input> inputs = task.inputs();
        if (!withContent && inputs != null) {
            inputs = inputs.stream().map(in -> in == null ? null : new TesModel.Input(in.name(), in.description(), in.url(), in.path(),
                    in.type(), null, in.streamable())).toList();
        }
        TesModel.Task kept = new TesModel.Task(task.name(), task.description(), inputs, task.outputs(), r,
                task.executors(), task.volumes(), task.tags());
        try {
            return JSON.writeValueAsString(kept);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a TES task read from JSON could not be written back", e);
        }
    }

    /** What every executor of the task needs, from {@code resources}; queue and priority go on the job. */
    private static final class Needs {
        final ResourceRequest.Builder resources = ResourceRequest.newBuilder();
        final Map<String, String> nodeLabels = new TreeMap<>();
        String timeout, framework, spot;
    }

    private static Needs needs(TesModel.Resources r, JobSubmission.Builder job, List<String> errors, List<String> dropped) {
        Needs needs = new Needs();
        if (r == null) return needs;
        ResourceRequest.Builder out = needs.resources;
        Map<String, String> nodeLabels = needs.nodeLabels;
        if (r.preemptible() != null) needs.spot = r.preemptible() ? "allow" : "never";
        if (r.cpuCores() != null) {
            if (r.cpuCores() < 1) errors.add("resources.cpu_cores: must be 1 or more, not " + r.cpuCores());
            else out.setCpu((double) r.cpuCores());
        }
        if (r.ramGb() != null) {
            if (!(r.ramGb() > 0)) errors.add("resources.ram_gb: must be more than 0, not " + r.ramGb());
            else out.setMemory(decimalGigabytes(r.ramGb())); // the spec's GB: 10^9 bytes
        }
        if (r.diskGb() != null) {
            if (!(r.diskGb() > 0)) errors.add("resources.disk_gb: must be more than 0, not " + r.diskGb());
            else out.setDisk(decimalGigabytes(r.diskGb()));
        }
        if (r.zones() != null && r.zones().size() > 1) {
            errors.add("resources.zones: Flash can honour one zone (the node label zone), not " + r.zones().size());
        } else if (r.zones() != null && r.zones().size() == 1) {
            nodeLabels.put("zone", r.zones().get(0));
        }
        boolean strict = Boolean.TRUE.equals(r.backendParametersStrict());
        Map<String, String> parameters = r.backendParameters() == null ? Map.of() : r.backendParameters();
        for (var entry : new TreeMap<>(parameters).entrySet()) {
            String key = entry.getKey().toLowerCase(Locale.ROOT), value = entry.getValue();
            String at = "resources.backend_parameters." + entry.getKey();
            switch (key) {
                case "disk_type" -> out.setDiskType(value);
                case "network" -> out.setNetwork(value);
                case "framework" -> needs.framework = value;
                case "queue" -> job.setQueue(value);
                case "timeout" -> needs.timeout = value;
                case "gpus" -> integer(value, at, errors).ifPresent(out::setGpus);
                case "priority" -> integer(value, at, errors).ifPresent(job::setPriority);
                default -> {
                    if (key.startsWith("node_label.") && key.length() > "node_label.".length()) {
                        nodeLabels.put(entry.getKey().substring("node_label.".length()), value);
                    } else if (strict) {
                        errors.add(at + ": unknown to Flash (backend_parameters_strict is true); known: " + BACKEND_PARAMETERS);
                    } else {
                        dropped.add(entry.getKey());
                    }
                }
            }
        }
        return needs;
    }

    private static Optional<Integer> integer(String value, String at, List<String> errors) {
        try {
            return Optional.of(Integer.parseInt(value == null ? "" : value.trim()));
        } catch (NumberFormatException e) {
            errors.add(at + ": must be a whole number, not '" + value + "'");
            return Optional.empty();
        }
    }

    private static String decimalGigabytes(double gb) {
        return BigDecimal.valueOf(gb).stripTrailingZeros().toPlainString() + "G";
    }
}
