package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The node's trust boundary attacked as a signed-in user would attack it (issue 28): each scenario
 * is a TES task or job of alice's on the secure platform, aimed at a file of the host that only root
 * may touch, and must end as alice's own failure with its reason while the target stays as it was.
 * {@link SecureModeTest} runs them on its platform; this class holds what they do.
 */
final class NodeTrustAttacks {

    private static final Set<String> FINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private final FlashStack stack;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final Path victims;

    NodeTrustAttacks(FlashStack stack) throws IOException {
        this.stack = stack;
        this.victims = Files.createDirectories(stack.dataDir().resolve("victims"));
        Files.setPosixFilePermissions(victims, PosixFilePermissions.fromString("rwx------"));
    }

    /** A root-only file of the host with known content. */
    Path victim(String name) throws IOException {
        Path file = victims.resolve(name);
        Files.writeString(file, "root's own " + name + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    static void untouched(Path victim) throws IOException {
        assertEquals("root's own " + victim.getFileName() + "\n", Files.readString(victim), victim + " was changed");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(victim)), victim + "'s mode changed");
        assertEquals(0, Files.getAttribute(victim, "unix:uid"), victim + " changed hands");
    }

    HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(stack.apiUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Creates a TES task as the token's user; returns its id (the Flash job id). */
    String tes(String token, String task) throws Exception {
        HttpResponse<String> created = call("POST", "/ga4gh/tes/v1/tasks", token, task);
        assertEquals(200, created.statusCode(), created.body());
        return json.readTree(created.body()).get("id").asText();
    }

    /** The job's page once it has ended. */
    JsonNode ended(String jobId, String token) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode page = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = call("GET", "/jobs/" + jobId, token, null);
            if (r.statusCode() == 200) {
                page = json.readTree(r.body());
                if (FINAL.contains(page.get("job").get("state").asText())) return page;
            }
            Thread.sleep(300);
        }
        throw new AssertionError("job " + jobId + " did not end: " + page + "; logs in " + stack.logs());
    }

    /** The job failed as its user's own doing, with a reason that says {@code words}. */
    JsonNode failsAsTheUsersOwn(String jobId, String token, String words) throws Exception {
        JsonNode page = ended(jobId, token);
        assertEquals("FAILED", page.get("job").get("state").asText(), page::toString);
        List<String> reasons = new ArrayList<>();
        for (JsonNode task : page.get("tasks")) {
            if (!task.path("failureClass").isNull() && !task.path("failureClass").isMissingNode()) {
                assertEquals("USER", task.get("failureClass").asText(), page::toString);
                reasons.add(task.path("reason").asText());
            }
        }
        assertTrue(reasons.stream().anyMatch(r -> r.contains(words)), () -> "no reason says '" + words + "': " + reasons);
        return page;
    }

    private static String shell(String script) {
        return "{\"image\": \"flash/shell:1\", \"command\": [\"sh\", \"-c\", \"" + script + "\"]}";
    }

    /** 1. An output the task made a link to a root-only file is not copied out. */
    void aSymlinkOutputIsRefused(String alice) throws Exception {
        Path users = stack.dataDir().resolve("keycloak/users");
        String before = Files.readString(users);
        Path copy = stack.dataDir().resolve("shared/alice/leak");
        String id = tes(alice, "{\"name\": \"leak\", \"outputs\": [{\"path\": \"/out/leak\", \"url\": \"file://" + copy + "\"}],"
                + " \"executors\": [" + shell("ln -s " + users + " /out/leak") + "]}");
        failsAsTheUsersOwn(id, alice, "/out/leak is a symbolic link");
        assertFalse(Files.exists(copy, LinkOption.NOFOLLOW_LINKS), "the users file was copied to " + copy);
        assertEquals(before, Files.readString(users));
    }

    /** 2. A redirected stdout the task made a link is not written through. */
    void aRedirectedStreamIsNotWrittenThroughALink(String alice) throws Exception {
        Path target = victim("stdout-target");
        String id = tes(alice, "{\"name\": \"overwrite\", \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"sh\", \"-c\","
                + " \"ln -sf " + target + " /out/stdout.txt; echo payload\"], \"stdout\": \"/out/stdout.txt\"}]}");
        failsAsTheUsersOwn(id, alice, "symbolic link");
        untouched(target);
    }

    /** 3. An input is not written over a link an earlier executor left. */
    void anInputIsNotWrittenThroughALinkAnEarlierExecutorLeft(String alice) throws Exception {
        Path planted = victims.resolve("planted");
        String id = tes(alice, "{\"name\": \"plant\", \"volumes\": [\"/vol\"],"
                + " \"inputs\": [{\"path\": \"/vol/drop\", \"content\": \"payload\"}],"
                + " \"executors\": [" + shell("rm /vol/drop; ln -s " + planted + " /vol/drop") + ", " + shell("cat /vol/drop") + "]}");
        failsAsTheUsersOwn(id, alice, "symbolic link");
        assertFalse(Files.exists(planted, LinkOption.NOFOLLOW_LINKS), "the input was written to " + planted);
    }

    /** 4. A read-only input whose source an earlier executor replaced by a link is not bound. */
    void aReplacedMountSourceIsNotBound(String alice) throws Exception {
        Path secret = victim("mounted-secret");
        String id = tes(alice, "{\"name\": \"bind\", \"inputs\": [{\"path\": \"/data/ref\", \"content\": \"genome\"}],"
                + " \"executors\": [" + shell("rm -f /workspace/tes/fs/data/ref; ln -s " + secret + " /workspace/tes/fs/data/ref")
                + ", " + shell("cat /data/ref") + "]}");
        JsonNode page = failsAsTheUsersOwn(id, alice, "symbolic link");
        assertFalse(page.toString().contains("root's own"), "the host file reached the task: " + page);
        untouched(secret);
    }

    /** 5. An http input naming the node itself (the registry on loopback) is not fetched. */
    void anHttpInputCannotReachTheNodeItself(String alice) throws Exception {
        String id = tes(alice, "{\"name\": \"ssrf\", \"inputs\": [{\"path\": \"/in/groups.json\", \"url\": \""
                + stack.registryUrl() + "/apis/registry/v3/groups\"}], \"executors\": [" + shell("cat /in/groups.json") + "]}");
        failsAsTheUsersOwn(id, alice, "refused by the rule 'loopback'");
    }

    /** 6. A job's workspace belongs to the task's user alone; the directories above it to root alone. */
    void workspacesBelongToTheTasksUserAlone(String alice) throws Exception {
        String id = tes(alice, "{\"name\": \"writes\", \"volumes\": [\"/vol\"], \"executors\": [" + shell("echo x > /vol/x") + "]}");
        assertEquals("SUCCEEDED", ended(id, alice).get("job").get("state").asText());
        Path workspace = stack.dataDir().resolve("work/jobs/" + id);
        for (Path p : List.of(workspace, workspace.resolve("tes/fs/vol"), workspace.resolve("tes/fs/vol/x"))) {
            assertEquals(65534, Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS), p + "'s owner");
        }
        for (Path p : List.of(workspace, workspace.resolve("tes/fs/vol"))) assertNoAccessForOthers(p); // what Flash made; x is the task's
        for (Path p : List.of(stack.dataDir().resolve("work/jobs"), stack.dataDir().resolve("work/attempts"))) {
            assertEquals(0, Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS), p + "'s owner");
            assertNoAccessForOthers(p);
        }
    }

    /** 7. The platform's data: the directory is 700; the broker's segments, logins and Keycloak's database are not readable by others. */
    void thePlatformsDataIsReadableByItsUserAlone() throws Exception {
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stack.dataDir())));
        int checked = 0;
        for (String dir : List.of("kafka", "keycloak", "registry")) {
            try (var walk = Files.walk(stack.dataDir().resolve(dir))) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    if (Files.isSymbolicLink(p)) continue;
                    assertNoAccessForOthers(p);
                    checked++;
                }
            }
        }
        assertTrue(checked > 50, "looked at the broker's segments too (" + checked + " paths)");
    }

    private static void assertNoAccessForOthers(Path p) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        assertFalse(mode.contains(PosixFilePermission.OTHERS_READ) || mode.contains(PosixFilePermission.OTHERS_WRITE)
                || mode.contains(PosixFilePermission.OTHERS_EXECUTE), () -> p + " is open to others: " + PosixFilePermissions.toString(mode));
    }

    /** 8. Alice takes the submission id bob will use: both jobs run, each its owner's, neither readable by the other. */
    void aSubmissionIdIsScopedByItsOwner(String alice, String bob) throws Exception {
        String file = "submissionId: nightly-42\nname: %s\ntasks:\n  - {name: hi, image: \"flash/shell:1\", command: \"echo %s\"}\n";
        HttpResponse<String> first = call("POST", "/jobs", alice, file.formatted("alices", "alice"));
        assertEquals(202, first.statusCode(), first.body());
        String alices = json.readTree(first.body()).get("jobId").asText();
        assertEquals("SUCCEEDED", ended(alices, alice).get("job").get("state").asText());
        HttpResponse<String> second = call("POST", "/jobs", bob, file.formatted("bobs", "bob"));
        assertEquals(202, second.statusCode(), second.body());
        String bobs = json.readTree(second.body()).get("jobId").asText();
        assertNotEquals(alices, bobs, "the same submission id names a job of each owner");
        JsonNode bobsJob = ended(bobs, bob);
        assertEquals("SUCCEEDED", bobsJob.get("job").get("state").asText(), "bob's job ran");
        assertEquals("bob", bobsJob.get("job").get("owner").asText());
        assertEquals(403, call("GET", "/jobs/" + bobs, alice, null).statusCode());
        assertEquals(403, call("GET", "/jobs/" + alices, bob, null).statusCode());
    }
}
