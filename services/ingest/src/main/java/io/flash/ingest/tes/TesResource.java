package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.client.JobClient;
import io.flash.ingest.intake.SubmissionProcessor;
import io.flash.ingest.validation.ValidationResult;
import io.flash.ingest.view.JobViews;
import io.flash.schema.FieldError;
import io.flash.schema.JobStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.*;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.*;

/**
 * GA4GH TES 1.1 under {@code /ga4gh/tes/v1} — a first part (docs/tes.md): create, the MINIMAL view,
 * list, cancel, service-info. A created task is validated here by the same validator as the ingest
 * topic (a refused one never reaches Kafka) and then published as a Flash job like any other; its
 * TES id is the Flash job id. Reads come from this instance's {@link JobViews}.
 */
@Path("/ga4gh/tes/v1")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class TesResource {

    static final int DEFAULT_PAGE_SIZE = 256, MAX_PAGE_SIZE = 2047;
    private static final Set<String> STATES = Set.of("UNKNOWN", "QUEUED", "INITIALIZING", "RUNNING", "PAUSED", "COMPLETE",
            "EXECUTOR_ERROR", "SYSTEM_ERROR", "CANCELED", "PREEMPTED", "CANCELING");
    private final ObjectMapper json = new ObjectMapper();
    private final JobViews views;
    private final SubmissionProcessor validation;
    private final JobClient client;
    private final String version;

    public TesResource(JobViews views, SubmissionProcessor validation, JobClient client,
                       @ConfigProperty(name = "quarkus.application.version", defaultValue = "0.1.0") String version) {
        this.views = views;
        this.validation = validation;
        this.client = client;
        this.version = version;
    }

    @GET
    @Path("/service-info")
    public Map<String, Object> serviceInfo() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("id", "io.flash.tes");
        info.put("name", "Flash");
        info.put("type", Map.of("group", "org.ga4gh", "artifact", "tes", "version", "1.1.0"));
        info.put("description", "Flash, a Kafka-native two-level scheduler: each TES task runs as a Flash job");
        info.put("organization", Map.of("name", "Flash", "url", "https://github.com/flash-scheduler/flash"));
        info.put("version", version);
        info.put("storage", List.of()); // inputs and outputs are not served yet (docs/tes.md)
        info.put("tesResources_backend_parameters", TesTranslator.BACKEND_PARAMETERS);
        return info;
    }

    @POST
    @Path("/tasks")
    @Consumes(MediaType.WILDCARD)
    public Response create(String body) throws Exception {
        TesModel.Task task;
        try {
            task = json.readValue(body == null ? "" : body, TesModel.Task.class);
        } catch (Exception e) {
            return refused(List.of("(body): not a TES task document: " + firstLine(e.getMessage())));
        }
        if (task == null) return refused(List.of("(body): empty; send a TES task document"));
        String submissionId = "tes-" + UUID.randomUUID();
        TesTranslator.Translation translation = TesTranslator.translate(task, submissionId, "tes");
        if (!translation.errors().isEmpty()) return refused(translation.errors());
        ValidationResult checked = validation.check(translation.submission(), submissionId, System.currentTimeMillis());
        if (!checked.isAccepted()) {
            return refused(checked.errors().stream().map(e -> inTesTerms(e)).toList());
        }
        String id = client.submit(translation.submission());
        // A client polls the id at once: answer once this instance's view knows the task (~0.1 s), or after 10 s regardless.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (views.job(id, 0, 1).isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
        return Response.ok(Map.of("id", id)).build();
    }

    @GET
    @Path("/tasks/{id}")
    public Response get(@PathParam("id") String id, @QueryParam("view") @DefaultValue("MINIMAL") String view) {
        if (!view.equals("MINIMAL")) return notServedYet(view);
        return views.job(id, 0, Integer.MAX_VALUE)
                .map(p -> Response.ok(minimal(p.job(), p)).build())
                .orElseGet(() -> unknown(id));
    }

    @GET
    @Path("/tasks")
    public Response list(@QueryParam("name_prefix") String namePrefix, @QueryParam("state") String state,
                         @QueryParam("tag_key") List<String> tagKeys, @QueryParam("page_size") Integer pageSize,
                         @QueryParam("page_token") String pageToken, @QueryParam("view") @DefaultValue("MINIMAL") String view) {
        if (!view.equals("MINIMAL")) return notServedYet(view);
        if (tagKeys != null && !tagKeys.isEmpty()) return refused(List.of("tag_key: filtering by tags is not served yet (docs/tes.md)"));
        if (state != null && !STATES.contains(state)) return refused(List.of("state: must be one of " + new TreeSet<>(STATES)));
        int size = pageSize == null ? DEFAULT_PAGE_SIZE : pageSize;
        if (size < 1 || size > MAX_PAGE_SIZE) return refused(List.of("page_size: must be 1 to " + MAX_PAGE_SIZE + ", not " + size));
        int from;
        try {
            from = pageToken == null || pageToken.isBlank() ? 0 : Integer.parseInt(pageToken);
        } catch (NumberFormatException e) {
            return refused(List.of("page_token: not a token this server gave"));
        }
        // Tasks in creation order of their jobs' ids is not stable under updates: order by id instead.
        List<Map<String, Object>> matching = views.find("tes", null, Integer.MAX_VALUE).stream()
                .filter(j -> namePrefix == null || j.getName().startsWith(namePrefix))
                .sorted(Comparator.comparing(JobStatus::getJobId))
                .map(j -> views.job(j.getJobId(), 0, Integer.MAX_VALUE).map(p -> minimal(j, p)).orElse(null))
                .filter(Objects::nonNull)
                .filter(t -> state == null || state.equals(t.get("state")))
                .toList();
        List<Map<String, Object>> page = matching.subList(Math.min(from, matching.size()), Math.min(matching.size(), from + size));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tasks", page);
        if (from + size < matching.size()) out.put("next_page_token", Integer.toString(from + size));
        return Response.ok(out).build();
    }

    @POST
    @Path("/tasks/{id}:cancel")
    public Response cancel(@PathParam("id") String id) throws Exception {
        if (views.job(id, 0, 1).isEmpty()) return unknown(id);
        client.cancel(id, "cancelled through TES");
        return Response.ok(Map.of()).build();
    }

    private static Map<String, Object> minimal(JobStatus job, JobViews.Page page) {
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("id", job.getJobId());
        task.put("state", TesStates.of(job, page.tasks()));
        return task;
    }

    /** The validator speaks of Flash's tasks; executor i is task exec-i. */
    private static String inTesTerms(FieldError e) {
        String field = e.getField().replaceFirst("^tasks\\[(\\d+)]", "executors[$1]");
        return field + ": " + e.getReason();
    }

    private static Response refused(List<String> errors) {
        return Response.status(400).entity(Map.of("msg", String.join("; ", errors), "status_code", 400, "errors", errors)).build();
    }

    private static Response unknown(String id) {
        return Response.status(404).entity(Map.of("msg", "no task " + id, "status_code", 404)).build();
    }

    private static Response notServedYet(String view) {
        return refused(List.of("view: " + view + " is not served yet, only MINIMAL (docs/tes.md)"));
    }

    private static String firstLine(String message) {
        if (message == null) return "unreadable";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
