package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.setup.KafkaGrants;
import io.flash.common.access.KafkaLogin;
import io.flash.common.client.JobClient;
import io.flash.common.jobfile.JobFiles;
import io.flash.schema.JobRejected;
import io.flash.schema.JobSubmission;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The secure mode end to end, as {@code bin/flash up --secure} runs it: a broker that takes only
 * SCRAM logins and allows only the ACLs of {@link KafkaGrants}, a real Keycloak (realm flash), and
 * the five services each signed in as its own principal. The owner of a job is the token's user
 * whichever door it comes through (HTTP, TES, a plain Kafka producer with the token in a header);
 * bob can neither read nor cancel alice's job, admin can; a client without a login cannot connect,
 * bob's login cannot write the dispatcher's topic or read a framework's assignments; a forged or
 * expired token is refused with its reason; a service killed and started again signs in again; and
 * no secret used here is in any log or on any topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecureModeTest {

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private FlashStack stack;
    /** Reads outcomes as the operator: a user's login may not read the shared topics. */
    private JobClient operator;
    private final Map<String, String> passwords = new java.util.HashMap<>();
    /** Every token handed out here, for the last test's search. */
    private final java.util.List<String> tokens = new java.util.ArrayList<>();
    private long startedAt;
    private NodeTrustAttacks attacks;

    @BeforeAll
    void startTheSecurePlatform() throws Exception {
        startedAt = System.currentTimeMillis();
        stack = FlashStack.secure(Path.of("target/e2e-secure"), 19392, 18381, 18390).start();
        for (String line : Files.readAllLines(stack.dataDir().resolve("keycloak/users"))) {
            String[] f = line.split(" ");
            passwords.put(f[0], f[1]);
        }
        operator = new JobClient(stack.bootstrapServers(), stack.registryUrl(), stack.login(KafkaGrants.ADMIN));
        attacks = new NodeTrustAttacks(stack);
    }

    @AfterAll
    void stopIt() throws Exception {
        if (operator != null) operator.close();
        if (stack != null) stack.close();
    }

    private String token(String user) throws Exception {
        return token(user, passwords.get(user), "flash-cli", stack.oidcUrl());
    }

    /** An access token from the real provider by the password grant (what `flash login` does). */
    private String token(String user, String password, String clientId, String realm) throws Exception {
        String form = "grant_type=password&client_id=" + clientId + "&username=" + user + "&password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(realm + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        String token = json.readTree(r.body()).get("access_token").asText();
        tokens.add(token);
        return token;
    }

    private HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(stack.apiUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode awaitJob(String id, String token) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        HttpResponse<String> r;
        do {
            r = call("GET", "/jobs/" + id, token, null);
            if (r.statusCode() == 200) return json.readTree(r.body());
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("job " + id + " not readable: " + r.statusCode() + " " + r.body());
    }

    @Test
    void aJobIsItsUsersOwnAndOnlyItsOwnerOrAnAdminMayReadOrCancelIt() throws Exception {
        String alice = token("alice"), bob = token("bob"), admin = token("admin");
        HttpResponse<String> submitted = call("POST", "/jobs", alice, """
                name: alices-job
                tasks:
                  - {name: wait, image: "flash/shell:1", command: "sleep 120"}
                """);
        assertEquals(202, submitted.statusCode(), submitted.body());
        String id = json.readTree(submitted.body()).get("jobId").asText();
        assertEquals("alice", awaitJob(id, alice).get("job").get("owner").asText(), "the owner is the token's user");

        HttpResponse<String> bobReads = call("GET", "/jobs/" + id, bob, null);
        assertEquals(403, bobReads.statusCode());
        assertTrue(bobReads.body().contains("bob may not read a job of alice"), bobReads.body());
        assertEquals(403, call("POST", "/jobs/" + id + "/cancel", bob, null).statusCode());
        assertFalse(call("GET", "/jobs?owner=alice", bob, null).body().contains(id), "bob's listing holds only his own jobs");
        assertTrue(call("GET", "/jobs", admin, null).body().contains(id), "an admin lists everyone's");
        assertEquals(200, call("GET", "/jobs/" + id, admin, null).statusCode());
        Thread.sleep(2_000); // time for a cancel, had one been published, to reach the planner and come back
        assertNotEquals("CANCELLED", awaitJob(id, alice).get("job").get("state").asText(), "bob's cancel changed nothing");

        assertEquals(202, call("POST", "/jobs/" + id + "/cancel", admin, null).statusCode());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!awaitJob(id, alice).get("job").get("state").asText().equals("CANCELLED") && System.nanoTime() < deadline) Thread.sleep(200);
        assertEquals("CANCELLED", awaitJob(id, alice).get("job").get("state").asText());
    }

    private JsonNode awaitEnd(String id, String token) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode page = awaitJob(id, token);
        while (!Set.of("SUCCEEDED", "FAILED", "CANCELLED").contains(page.get("job").get("state").asText()) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            page = awaitJob(id, token);
        }
        return page;
    }

    /**
     * docs/caching.md: the cache is its owner's. Bob's job, identical to alice's to the byte, runs
     * for itself; alice's own again is served from hers; bob may not submit hers again, she may.
     */
    @Test
    void anotherOwnersIdenticalJobIsNotServedFromTheCacheNorMayHeResubmitIt() throws Exception {
        String alice = token("alice"), bob = token("bob");
        String job = """
                name: cached-twice
                tasks:
                  - {name: make, image: "flash/shell:1", command: "printf ACGT > /workspace/seq.txt", outputs: [seq.txt],
                     resources: {cpu: 0.25, memory: 32Mi}}
                """;
        String first = json.readTree(call("POST", "/jobs", alice, job).body()).get("jobId").asText();
        JsonNode made = awaitEnd(first, alice).get("tasks").get(0);
        assertEquals("SUCCEEDED", made.get("state").asText(), made::toString);
        String bobs = json.readTree(call("POST", "/jobs", bob, job).body()).get("jobId").asText();
        JsonNode bobsUnit = awaitEnd(bobs, bob).get("tasks").get(0);
        assertEquals("SUCCEEDED", bobsUnit.get("state").asText());
        assertEquals(made.get("cacheKey").asText(), bobsUnit.get("cacheKey").asText(), "the same unit, the same key");
        assertTrue(bobsUnit.get("cachedFrom").isNull(), "but not alice's result: " + bobsUnit);

        assertEquals(403, call("POST", "/jobs/" + first + "/resubmit", bob, null).statusCode(), "bob may not submit alice's job again");
        HttpResponse<String> again = call("POST", "/jobs/" + first + "/resubmit", alice, null);
        assertEquals(202, again.statusCode(), again.body());
        String resubmitted = json.readTree(again.body()).get("jobId").asText();
        JsonNode page = awaitEnd(resubmitted, alice);
        assertEquals("alice", page.get("job").get("owner").asText());
        assertEquals(first + ".make.1", page.get("tasks").get(0).get("cachedFrom").asText(), "her own job again: served from her result");
    }

    /** The web console signs alice in through Keycloak's own page and shows her only her own jobs. */
    @Test
    void theConsoleSignsAliceInAndShowsHerOnlyHerOwnJobs() throws Exception {
        String job = "tasks:\n  - {name: wait, image: \"flash/shell:1\", command: \"sleep 60\"}\n";
        String alices = json.readTree(call("POST", "/jobs", token("alice"), "name: alices-console-job\n" + job).body()).get("jobId").asText();
        String bobs = json.readTree(call("POST", "/jobs", token("bob"), "name: bobs-console-job\n" + job).body()).get("jobId").asText();
        awaitJob(alices, token("alice"));
        awaitJob(bobs, token("bob"));
        try (ConsoleBrowser browser = new ConsoleBrowser()) {
            browser.open(stack.apiUrl() + "/#/jobs");
            browser.await(Duration.ofSeconds(60), "Keycloak's sign-in page", d -> browser.present("#username") && browser.present("#kc-login"));
            assertTrue(browser.driver.getCurrentUrl().startsWith(stack.oidcUrl()), "signed in at the provider: " + browser.driver.getCurrentUrl());
            browser.driver.findElement(org.openqa.selenium.By.id("username")).sendKeys("alice");
            browser.driver.findElement(org.openqa.selenium.By.id("password")).sendKeys(passwords.get("alice"));
            browser.driver.findElement(org.openqa.selenium.By.id("kc-login")).click();
            browser.await(Duration.ofSeconds(60), "alice's job in her list", d -> browser.present("tr[data-job='" + alices + "']"));
            assertFalse(browser.present("tr[data-job='" + bobs + "']"), "bob's job is not in alice's list");
            assertTrue(browser.text("#who").startsWith("alice"), browser.text("#who"));
            assertEquals("", browser.text("#mode"), "no open-mode banner");
            Object stored = browser.script("for (let i = 0; i < sessionStorage.length; i++) { const k = sessionStorage.key(i);"
                    + " if (k.startsWith('oidc.user:')) return JSON.parse(sessionStorage.getItem(k)).access_token; } return null;");
            assertNotNull(stored, "the console holds alice's token for its calls");
            tokens.add(stored.toString());
            browser.screenshot("secure-alice-jobs");

            browser.open(stack.apiUrl() + "/#/jobs/" + alices);
            browser.await(Duration.ofSeconds(30), "her job's page", d -> browser.text("#job-header h1").contains("alices-console-job"));
            browser.open(stack.apiUrl() + "/#/jobs/" + bobs);
            browser.await(Duration.ofSeconds(30), "bob's job refused with the reason",
                    d -> browser.text("#job-header").contains("alice may not follow a job of bob"));
            browser.screenshot("secure-alice-refused");
        } finally {
            call("POST", "/jobs/" + alices + "/cancel", token("admin"), null);
            call("POST", "/jobs/" + bobs + "/cancel", token("admin"), null);
        }
    }

    @Test
    void noTokenAForgedTokenOrAnotherOwnersNameIsRefusedWithItsReason() throws Exception {
        HttpResponse<String> anonymous = call("GET", "/jobs", null, null);
        assertEquals(401, anonymous.statusCode());
        assertTrue(anonymous.body().contains("sign in first"), anonymous.body());
        String alice = token("alice");
        String forged = alice.substring(0, alice.lastIndexOf('.') + 1) + "c2lnbmVkIGJ5IG5vYm9keQ";
        HttpResponse<String> forgedCall = call("GET", "/jobs", forged, null);
        assertEquals(401, forgedCall.statusCode(), "a token whose signature does not verify");
        assertTrue(forgedCall.body().contains("not valid"), "says why: " + forgedCall.body());
        HttpResponse<String> impersonating = call("POST", "/jobs", alice, """
                name: as-bob
                owner: bob
                tasks:
                  - {name: t, image: "flash/shell:1", command: "true"}
                """);
        assertEquals(403, impersonating.statusCode());
        assertTrue(impersonating.body().contains("alice may not submit a job owned by bob"), impersonating.body());
    }

    @Test
    void tesHonoursTheSameTokens() throws Exception {
        String alice = token("alice"), bob = token("bob");
        HttpResponse<String> created = call("POST", "/ga4gh/tes/v1/tasks", alice,
                "{\"name\": \"alices-tes\", \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"echo\", \"hi\"]}]}");
        assertEquals(200, created.statusCode(), created.body());
        String id = json.readTree(created.body()).get("id").asText();
        assertEquals(200, call("GET", "/ga4gh/tes/v1/tasks/" + id, alice, null).statusCode());
        assertEquals(403, call("GET", "/ga4gh/tes/v1/tasks/" + id, bob, null).statusCode());
        assertEquals(403, call("POST", "/ga4gh/tes/v1/tasks/" + id + ":cancel", bob, null).statusCode());
        assertFalse(call("GET", "/ga4gh/tes/v1/tasks", bob, null).body().contains(id));
        assertEquals(401, call("GET", "/ga4gh/tes/v1/tasks", null, null).statusCode());
    }

    private static JobSubmission hello(String name) throws Exception {
        return JobFiles.parse("name: " + name + "\ntasks:\n  - {name: hi, image: \"flash/shell:1\", command: \"echo hi\"}\n");
    }

    /** Publishes with a user's own broker login, as a lab's pipeline would; the outcome read as the operator. */
    private JobClient.Outcome publish(String kafkaUser, JobSubmission job, String token) throws Exception {
        String jobId;
        try (JobClient asUser = new JobClient(stack.bootstrapServers(), stack.registryUrl(), stack.login(kafkaUser))) {
            jobId = asUser.submit(job, token);
        }
        return operator.awaitOutcome(jobId, job.getSubmissionId(), Duration.ofSeconds(120))
                .orElseThrow(() -> new AssertionError("no outcome for " + job.getName() + "; logs in " + stack.logs()));
    }

    private static String reasons(JobClient.Outcome outcome) {
        JobRejected rejected = outcome.rejected();
        assertNotNull(rejected, () -> "expected a rejection, got " + outcome.result());
        return rejected.getReasons().toString();
    }

    @Test
    void alicePublishesAJobEventWithHerTokenOverPlainKafkaAndItIsHers() throws Exception {
        String alice = token("alice");
        JobClient.Outcome outcome = publish("alice", hello("alice-over-kafka"), alice);
        assertNull(outcome.rejected(), () -> "rejected: " + outcome.rejected());
        assertEquals("SUCCEEDED", outcome.result().getState().name());
        assertEquals("alice", awaitJob(outcome.jobId(), alice).get("job").get("owner").asText());
        assertEquals(403, call("GET", "/jobs/" + outcome.jobId(), token("bob"), null).statusCode(), "bob may not read it");
    }

    @Test
    void aJobEventWithoutATokenWithAForgedOneOrNamingAnotherOwnerIsRejectedNamingTheField() throws Exception {
        assertTrue(reasons(publish("bob", hello("no-token"), null)).contains("(header flash-token)"));
        String alice = token("alice");
        String forged = alice.substring(0, alice.lastIndexOf('.') + 1) + "c2lnbmVkIGJ5IG5vYm9keQ";
        assertTrue(reasons(publish("alice", hello("forged"), forged)).contains("not valid"));
        JobSubmission asBob = hello("as-bob");
        asBob.setOwner("bob");
        String refused = reasons(publish("alice", asBob, alice));
        assertTrue(refused.contains("owner") && refused.contains("alice may not submit a job owned by bob"), refused);
    }

    /** bin/flash as a person runs it, against this platform, with alice's login file. */
    private FlashStack.CommandResult flashCommand(String stdin, String... args) throws Exception {
        return stack.flash(stdin, Map.of("FLASH_LOGIN_FILE", stack.dataDir().resolve("alice-login.json").toString()), args);
    }

    @Test
    void aliceSignsInWithTheCliAndSubmitsAsHerself() throws Exception {
        FlashStack.CommandResult unsigned = flashCommand(null, "submit", stack.home().resolve("examples/hello.yaml").toString(), "--wait");
        assertNotEquals(0, unsigned.exit());
        assertTrue(unsigned.output().contains("(header flash-token): no access token"), unsigned.output());

        FlashStack.CommandResult login = flashCommand(passwords.get("alice") + "\n", "login", "alice");
        assertEquals(0, login.exit(), login.output());
        assertTrue(login.output().contains("as alice"), login.output());
        FlashStack.CommandResult submitted = flashCommand(null, "submit", stack.home().resolve("examples/hello.yaml").toString(), "--wait");
        assertEquals(0, submitted.exit(), submitted.output());
        assertTrue(submitted.output().contains("SUCCEEDED"), submitted.output());
        String jobId = submitted.output().lines().filter(l -> l.startsWith("job-")).findFirst().orElseThrow();
        assertEquals("alice", awaitJob(jobId, token("alice")).get("job").get("owner").asText());
        FlashStack.CommandResult status = flashCommand(null, "status", jobId);
        assertEquals(0, status.exit(), status.output());
        assertEquals(403, call("GET", "/jobs/" + jobId, token("bob"), null).statusCode());
        FlashStack.CommandResult logs = flashCommand(null, "logs", jobId);
        assertEquals(0, logs.exit(), logs.output());
        assertTrue(logs.output().contains("hello"), "her job's output: " + logs.output());
        HttpResponse<String> bobsLook = call("GET", "/jobs/" + jobId + "/logs", token("bob"), null);
        assertEquals(403, bobsLook.statusCode(), "bob may not read the logs of her job");
        assertFalse(bobsLook.body().contains("hello"));
        assertFalse(login.output().contains(passwords.get("alice")) || submitted.output().contains(passwords.get("alice")));
    }

    /** A token of a client whose tokens live 2 s (made here through Keycloak's admin API): expired, it is refused saying so. */
    @Test
    void anExpiredTokenIsRefusedOnBothDoorsSayingSo() throws Exception {
        String master = stack.oidcUrl().replace("/realms/flash", "");
        String adminToken = token("keycloak-admin", passwords.get("keycloak-admin"), "admin-cli", master + "/realms/master");
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(master + "/admin/realms/flash/clients"))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"clientId\": \"short-lived\", \"publicClient\": true,"
                        + " \"directAccessGrantsEnabled\": true, \"attributes\": {\"access.token.lifespan\": \"2\"},"
                        + " \"protocolMappers\": [{\"name\": \"aud\", \"protocol\": \"openid-connect\", \"protocolMapper\":"
                        + " \"oidc-audience-mapper\", \"config\": {\"included.custom.audience\": \"flash-api\","
                        + " \"access.token.claim\": \"true\"}}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(created.statusCode() == 201 || created.statusCode() == 409, created.statusCode() + " " + created.body());
        String shortLived = token("alice", passwords.get("alice"), "short-lived", stack.oidcUrl());
        assertEquals(200, call("GET", "/jobs", shortLived, null).statusCode(), "valid while it lives");
        Thread.sleep(4_000);
        HttpResponse<String> expired = call("GET", "/jobs", shortLived, null);
        assertEquals(401, expired.statusCode());
        assertTrue(expired.body().contains("had expired"), "says why: " + expired.body());
        assertTrue(reasons(publish("alice", hello("expired"), shortLived)).contains("expired"));
    }

    @Test
    void aClientWithoutALoginOrWithAWrongPasswordCannotUseTheBroker() throws Exception {
        Properties anonymous = new Properties();
        anonymous.put("bootstrap.servers", stack.bootstrapServers());
        anonymous.put("default.api.timeout.ms", "8000");
        anonymous.put("request.timeout.ms", "4000");
        try (var admin = org.apache.kafka.clients.admin.Admin.create(anonymous)) {
            assertThrows(Exception.class, () -> admin.listTopics().names().get(20, TimeUnit.SECONDS),
                    "a client without a login is not answered");
        }
        Properties wrong = new KafkaLogin("bob", "not-his-password").addTo(new Properties());
        wrong.putAll(anonymous);
        try (var admin = org.apache.kafka.clients.admin.Admin.create(wrong)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> admin.listTopics().names().get(20, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, e.getCause());
        }
    }

    @Test
    void bobsLoginCannotWriteTheDispatchersTopicNorReadAFrameworksAssignmentsOrTheIngestTopic() throws Exception {
        Properties bob = stack.login("bob").addTo(new Properties());
        bob.put("bootstrap.servers", stack.bootstrapServers());
        bob.put("max.block.ms", "15000");
        try (var producer = new KafkaProducer<>(bob, new ByteArraySerializer(), new ByteArraySerializer())) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("flash.tasks.ready", new byte[1])).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, e.getCause());
        }
        // Nor the ingest topic, whose records carry their publishers' tokens.
        for (String topic : List.of("flash.fw.ecs.assignments", "flash.jobs.submitted")) {
            try (var consumer = new KafkaConsumer<>(bob, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                consumer.seekToBeginning(consumer.assignment());
                assertThrows(TopicAuthorizationException.class, () -> {
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (System.nanoTime() < deadline) consumer.poll(Duration.ofSeconds(1));
                }, topic);
            }
        }
    }

    /**
     * A task with {@code network: bridge} has a network, but not to Flash: the broker, the registry,
     * Keycloak and the services listen on 127.0.0.1 only, which a container does not reach through
     * the bridge's gateway nor the machine's own address, and the Docker socket is never mounted.
     * The control: a port this test opens on every address is reached.
     */
    @Test
    void aBridgeNetworkTaskReachesNeitherTheBrokerNorTheRegistryNorTheDockerSocket() throws Exception {
        try (java.net.ServerSocket control = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("0.0.0.0"))) {
            Thread acceptor = new Thread(() -> {
                while (!control.isClosed()) {
                    try {
                        control.accept().close();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            List<String> hosts = new java.util.ArrayList<>(List.of("172.17.0.1"));
            for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
                if (nic.isLoopback() || !nic.isUp() || nic.getName().startsWith("docker") || nic.getName().startsWith("veth")) continue;
                nic.inetAddresses().filter(a -> a instanceof java.net.Inet4Address).forEach(a -> hosts.add(a.getHostAddress()));
            }
            String forbidden = String.join(" ", List.of("19392", "19393", "18381", "18382", Integer.toString(FlashStack.KEYCLOAK_PORT), "18390"));
            String script = "bad=0; for h in " + String.join(" ", hosts) + "; do for p in " + forbidden + "; do"
                    + " if nc -w 2 $h $p </dev/null 2>/dev/null; then echo \"reached $h:$p\"; bad=1; fi; done; done;"
                    + " if [ -e /var/run/docker.sock ]; then echo 'docker socket present'; bad=1; fi;"
                    + " nc -w 3 172.17.0.1 " + control.getLocalPort() + " </dev/null || { echo 'control not reached'; bad=1; };"
                    + " echo checked; exit $bad";
            JobSubmission job = JobFiles.parse("name: bridge-reach\ntasks:\n  - name: probe\n    image: \"flash/shell:1\"\n"
                    + "    command: " + json.writeValueAsString(script) + "\n    resources: {network: bridge}\n");
            JobClient.Outcome outcome = publish("alice", job, token("alice"));
            assertNull(outcome.rejected(), () -> "rejected: " + outcome.rejected());
            assertEquals("SUCCEEDED", outcome.result().getState().name(), () -> "the probe found a way in: " + outcome.result());
        }
    }

    /** Anyone may read the registry's schemas (consumers decode records with them); only the platform may write. */
    @Test
    void theRegistryTakesReadsFromAnyoneAndWritesOnlyFromThePlatform() throws Exception {
        String api = stack.registryUrl() + "/apis/registry/v3";
        HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create(api
                + "/groups/default/artifacts/flash.jobs.submitted-value/versions/branch=latest/content")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, read.statusCode(), "setup registered the ingest topic's schema, readable without a token: " + read.body());
        assertTrue(read.body().contains("JobSubmission"));
        String schema = "{\"artifactId\": \"intruder-value\", \"artifactType\": \"AVRO\", \"firstVersion\": {\"content\":"
                + " {\"content\": \"{\\\"type\\\": \\\"string\\\"}\", \"contentType\": \"application/json\"}}}";
        for (String token : new String[]{null, token("alice"), token("admin")}) {
            HttpRequest.Builder write = HttpRequest.newBuilder(URI.create(api + "/groups/default/artifacts"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(schema));
            if (token != null) write.header("Authorization", "Bearer " + token);
            int status = http.send(write.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
            assertEquals(token == null ? 401 : 403, status, "a write by " + (token == null ? "nobody" : "a person"));
        }
        HttpRequest.Builder rule = HttpRequest.newBuilder(URI.create(api + "/admin/rules/COMPATIBILITY"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token("bob"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"ruleType\":\"COMPATIBILITY\",\"config\":\"NONE\"}"));
        assertEquals(403, http.send(rule.build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "nor turn the compatibility rule off");
    }

    /** A Streams service killed -9 and started again signs in with its login and the platform runs jobs again. */
    /** Issue 28: what a task or a user controls never makes the node act as root on their behalf. */
    @Test
    void aTasksSymlinkOutputIsNotCopiedOut() throws Exception {
        attacks.aSymlinkOutputIsRefused(token("alice"));
    }

    @Test
    void aTasksRedirectedStdoutIsNotWrittenThroughALink() throws Exception {
        attacks.aRedirectedStreamIsNotWrittenThroughALink(token("alice"));
    }

    @Test
    void anInputIsNotWrittenThroughALinkAnEarlierExecutorLeft() throws Exception {
        attacks.anInputIsNotWrittenThroughALinkAnEarlierExecutorLeft(token("alice"));
    }

    @Test
    void aMountSourceReplacedByALinkIsNotBound() throws Exception {
        attacks.aReplacedMountSourceIsNotBound(token("alice"));
    }

    @Test
    void anHttpInputCannotReachTheNodesOwnServices() throws Exception {
        attacks.anHttpInputCannotReachTheNodeItself(token("alice"));
    }

    @Test
    void jobWorkspacesBelongToTheTasksUserAlone() throws Exception {
        attacks.workspacesBelongToTheTasksUserAlone(token("alice"));
    }

    @Test
    void thePlatformsDataIsReadableByItsOwnUserAlone() throws Exception {
        attacks.thePlatformsDataIsReadableByItsUserAlone();
    }

    @Test
    void aSubmissionIdIsScopedByItsOwner() throws Exception {
        attacks.aSubmissionIdIsScopedByItsOwner(token("alice"), token("bob"));
    }

    @Test
    void metricsNeedAnAdminAndATokenForAnotherAudienceIsRefused() throws Exception {
        assertEquals(401, call("GET", "/q/metrics", null, null).statusCode());
        assertEquals(403, call("GET", "/q/metrics", token("alice"), null).statusCode());
        assertEquals(200, call("GET", "/q/metrics", token("admin"), null).statusCode());
        String platform = io.flash.common.setup.SchemaSetup.platformToken(stack.oidcUrl(), stack.identityPassword("flash-platform"));
        HttpResponse<String> foreign = call("GET", "/jobs", platform, null);
        assertEquals(401, foreign.statusCode(), "a token issued to another client of the realm: " + foreign.body());
    }

    @Test
    @Order(Integer.MAX_VALUE - 1)
    void aServiceKilledAndStartedAgainSignsInAgain() throws Exception {
        stack.kill("dispatcher");
        stack.startService("dispatcher", Map.of());
        stack.awaitReady("dispatcher", Duration.ofSeconds(120));
        String alice = token("alice");
        HttpResponse<String> submitted = call("POST", "/jobs", alice, "name: after-restart\ntasks:\n  - {name: hi, image: \"flash/shell:1\", command: \"echo hi\"}\n");
        assertEquals(202, submitted.statusCode(), submitted.body());
        JsonNode accepted = json.readTree(submitted.body());
        JobClient.Outcome outcome = operator.awaitOutcome(accepted.get("jobId").asText(), accepted.get("submissionId").asText(),
                        Duration.ofSeconds(120))
                .orElseThrow(() -> new AssertionError("no result after the dispatcher's restart; logs in " + stack.logs()));
        assertEquals("SUCCEEDED", outcome.result().getState().name());
    }

    /** Last: no password or token of this class's run is in any service's log or on any topic (records since it began). */
    @Test
    @Order(Integer.MAX_VALUE)
    void noSecretUsedHereIsInAnyLogOrOnAnyTopic() throws Exception {
        assertFalse(tokens.isEmpty(), "the tests before handed out tokens");
        java.util.List<String> secrets = new java.util.ArrayList<>(passwords.values());
        secrets.addAll(io.flash.common.setup.SecuritySetup.readLogins(stack.credentials()).values()); // the broker logins
        for (String t : tokens) secrets.add(t.substring(t.lastIndexOf('.') + 1)); // a token's signature: only the token has it
        java.util.List<String> found = new java.util.ArrayList<>();
        try (var logs = Files.list(stack.logs())) {
            for (java.nio.file.Path log : logs.toList()) {
                String text = Files.readString(log, StandardCharsets.ISO_8859_1);
                for (String secret : secrets) if (text.contains(secret)) found.add(log.getFileName() + " holds a secret");
            }
        }
        java.util.Properties props = stack.login(KafkaGrants.ADMIN).addTo(new java.util.Properties());
        props.put("bootstrap.servers", stack.bootstrapServers());
        try (var admin = org.apache.kafka.clients.admin.Admin.create(props);
             var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(props,
                     new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                     new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partitions = new java.util.ArrayList<org.apache.kafka.common.TopicPartition>();
            for (String topic : admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true)).names().get()) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new org.apache.kafka.common.TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> since = new java.util.HashMap<>();
            partitions.forEach(p -> since.put(p, startedAt));
            Map<org.apache.kafka.common.TopicPartition, Long> ends = consumer.endOffsets(partitions);
            consumer.offsetsForTimes(since).forEach((p, o) -> consumer.seek(p, o == null ? ends.get(p) : o.offset()));
            long records = 0, deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue()) && System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    records++;
                    String bytes = (record.key() == null ? "" : new String(record.key(), StandardCharsets.ISO_8859_1))
                            + (record.value() == null ? "" : new String(record.value(), StandardCharsets.ISO_8859_1));
                    for (var header : record.headers()) {
                        // The one place a token is by design: a job event's own, which ingest verifies. Only
                        // ingest and the operator may read that topic (the test before: bob may not).
                        if (record.topic().equals("flash.jobs.submitted") && header.key().equals(JobClient.TOKEN_HEADER)) continue;
                        bytes += new String(header.value() == null ? new byte[0] : header.value(), StandardCharsets.ISO_8859_1);
                    }
                    for (String secret : secrets) if (bytes.contains(secret)) found.add(record.topic() + " offset " + record.offset() + " holds a secret");
                }
            }
            assertTrue(records > 0, "read the topics");
            for (var e : ends.entrySet()) assertTrue(consumer.position(e.getKey()) >= e.getValue(), "read all of " + e.getKey());
        }
        assertEquals(java.util.List.of(), found);
    }
}
