package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flash.common.client.JobClient;
import io.flash.ingest.api.Callers;
import io.flash.ingest.app.IngestConfig;
import io.flash.ingest.core.Intake;
import io.flash.ingest.core.access.Access;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.core.validation.ValidationResult;
import io.flash.ingest.view.JobViews;
import io.flash.schema.JobStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.*;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.*;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * GA4GH TES 1.1 under {@code /ga4gh/tes/v1} (docs/tes.md): create, the three views, list with its
 * filters and paging, cancel, service-info. A created task is validated here by the same validator as the ingest
 * topic (a refused one never reaches Kafka) and then published as a Flash job like any other; its
 * TES id is the Flash job id. Reads come from this instance's {@link JobViews}.
 */
@Path("/ga4gh/tes/v1")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class TesResource {

    static final int DEFAULT_PAGE_SIZE = 256, MAX_PAGE_SIZE = 2047;
    /** What next_page_token holds: the id of the last task of a page (a Flash job id). */
    private static final Pattern PAGE_TOKEN = Pattern.compile("job-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}");
    private static final Set<String> STATES = Set.of("UNKNOWN", "QUEUED", "INITIALIZING", "RUNNING", "PAUSED", "COMPLETE",
            "EXECUTOR_ERROR", "SYSTEM_ERROR", "CANCELED", "PREEMPTED", "CANCELING");
    private final ObjectMapper json = new ObjectMapper();
    private final JobViews views;
    private final Intake validation;
    private final JobClient client;
    private final String version;
    private final List<String> storage;

    private final Callers callers;

    public TesResource(JobViews views, Intake validation, JobClient client, Callers callers,
                       @ConfigProperty(name = "quarkus.application.version", defaultValue = "0.1.0") String version,
                       IngestConfig config) {
        List<String> storage = config.tes().storage();
        this.storage = config.tes().objectStore().filter(endpoint -> !endpoint.isBlank()).isEmpty() || storage.contains("s3://") ? storage
                : Stream.concat(Stream.of("s3://"), storage.stream()).toList();
        this.callers = callers;
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
        info.put("storage", storage);
        info.put("tesResources_backend_parameters", TesTranslator.BACKEND_PARAMETERS);
        return info;
    }

    @POST
    @Path("/tasks")
    @Consumes(MediaType.WILDCARD)
    public Response create(String body) throws Exception {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        TesModel.Task task;
        try {
            task = json.readValue(body == null ? "" : body, TesModel.Task.class);
        } catch (Exception e) {
            return refused(List.of("(body): not a TES task document: " + firstLine(e.getMessage())));
        }
        if (task == null) return refused(List.of("(body): empty; send a TES task document"));
        String submissionId = "tes-" + UUID.randomUUID();
        TesTranslator.Translation translation = TesTranslator.translate(task, submissionId,
                caller.get().open() ? "tes" : caller.get().name());
        ValidationResult checked = validation.check(translation.built(), submissionId, System.currentTimeMillis());
        List<String> problems = new ArrayList<>(TesTranslator.problems(translation, checked.errors()));
        problems.addAll(TesFiles.outsideSharedRoots(task, storage));
        if (!problems.isEmpty()) return refused(problems);
        String id = client.submit(translation.submission(), callers.token());
        // A client polls the id at once: answer once this instance's view knows the task (~0.1 s), or after 10 s regardless.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (views.job(id, 0, 1).isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
        return Response.ok(Map.of("id", id)).build();
    }

    @GET
    @Path("/tasks/{id}")
    public Response get(@PathParam("id") String id, @QueryParam("view") @DefaultValue("MINIMAL") String view) {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        Optional<TesViews.View> chosen = view(view);
        if (chosen.isEmpty()) return badView(view);
        return views.job(id, 0, Integer.MAX_VALUE)
                .filter(p -> TesViews.isTesTask(p.job()))
                .map(p -> !Access.mayAct(caller.get(), p.job().getOwner()) ? Callers.forbidden(caller.get(), p.job().getOwner(), "read")
                        : Response.ok(TesViews.render(p.job(), p.tasks(), chosen.get())).build())
                .orElseGet(() -> unknown(id));
    }

    /**
     * Tasks ordered by id (stable while they change state); the page token is the last id of the
     * page before, so a task created meanwhile neither repeats nor shifts a page.
     */
    @GET
    @Path("/tasks")
    public Response list(@QueryParam("name_prefix") String namePrefix, @QueryParam("state") String state,
                         @QueryParam("tag_key") List<String> tagKeys, @QueryParam("tag_value") List<String> tagValues,
                         @QueryParam("page_size") Integer pageSize, @QueryParam("page_token") String pageToken,
                         @QueryParam("view") @DefaultValue("MINIMAL") String view) {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        Optional<TesViews.View> chosen = view(view);
        if (chosen.isEmpty()) return badView(view);
        if (state != null && !STATES.contains(state)) return refused(List.of("state: must be one of " + new TreeSet<>(STATES)));
        int size = pageSize == null ? DEFAULT_PAGE_SIZE : pageSize;
        if (size < 1 || size > MAX_PAGE_SIZE) return refused(List.of("page_size: must be 1 to " + MAX_PAGE_SIZE + ", not " + size));
        List<String> keys = tagKeys == null ? List.of() : tagKeys, values = tagValues == null ? List.of() : tagValues;
        if (values.size() > keys.size()) return refused(List.of("tag_value: " + values.size() + " values for " + keys.size() + " tag_key"));
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) wanted.put(keys.get(i), i < values.size() ? values.get(i) : "");
        String after = pageToken == null || pageToken.isBlank() ? "" : pageToken;
        if (!after.isEmpty() && !PAGE_TOKEN.matcher(after).matches()) {
            return refused(List.of("page_token: '" + printable(after) + "' is not a token this server gave (take next_page_token"
                    + " from the previous page, or leave it out for the first page)"));
        }
        List<ObjectNode> page = new ArrayList<>();
        boolean more = false;
        for (JobStatus job : views.jobsAfter(after)) {
            if (!TesViews.isTesTask(job) || namePrefix != null && !job.getName().startsWith(namePrefix)) continue;
            if (!Access.mayAct(caller.get(), job.getOwner())) continue;
            if (!tagsMatch(TesViews.tags(job), wanted)) continue;
            Optional<JobViews.Page> tasks = views.job(job.getJobId(), 0, Integer.MAX_VALUE);
            if (tasks.isEmpty()) continue;
            if (state != null && !state.equals(TesStates.of(job, tasks.get().tasks()))) continue;
            if (page.size() == size) {
                more = true;
                break;
            }
            page.add(TesViews.render(job, tasks.get().tasks(), chosen.get()));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tasks", page);
        if (more) out.put("next_page_token", page.get(page.size() - 1).get("id").asText());
        return Response.ok(out).build();
    }

    /** The spec's table: an empty wanted value matches any value of that key; every wanted key must be there. */
    static boolean tagsMatch(Map<String, String> tags, Map<String, String> wanted) {
        for (var want : wanted.entrySet()) {
            String value = tags.get(want.getKey());
            if (value == null || !want.getValue().isEmpty() && !want.getValue().equals(value)) return false;
        }
        return true;
    }

    @POST
    @Path("/tasks/{id}:cancel")
    public Response cancel(@PathParam("id") String id) throws Exception {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        Optional<JobViews.Page> task = views.job(id, 0, 1).filter(p -> TesViews.isTesTask(p.job()));
        if (task.isEmpty()) return unknown(id);
        if (!Access.mayAct(caller.get(), task.get().job().getOwner())) return Callers.forbidden(caller.get(), task.get().job().getOwner(), "cancel");
        client.cancel(id, "cancelled through TES");
        return Response.ok(Map.of()).build();
    }

    private static Optional<TesViews.View> view(String name) {
        try {
            return Optional.of(TesViews.View.valueOf(name));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Response refused(List<String> errors) {
        return Response.status(400).entity(Map.of("msg", String.join("; ", errors), "status_code", 400, "errors", errors)).build();
    }

    private static Response unknown(String id) {
        return Response.status(404).entity(Map.of("msg", "no task " + id, "status_code", 404)).build();
    }

    private static Response badView(String view) {
        return refused(List.of("view: must be MINIMAL, BASIC or FULL, not " + view));
    }

    /** A client's text, shortened and without control characters, to quote in an error. */
    private static String printable(String text) {
        String cut = text.length() > 80 ? text.substring(0, 80) + "…" : text;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private static String firstLine(String message) {
        if (message == null) return "unreadable";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
