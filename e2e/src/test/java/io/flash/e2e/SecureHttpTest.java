package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The secure mode's HTTP doors against a real Keycloak (infra/keycloak/start.sh, realm flash) and
 * an ingest instance with FLASH_SECURITY=on: the owner of a job is the token's user; bob can
 * neither read nor cancel alice's job, admin can; no token, a forged one, or a submission naming
 * another owner is refused with its reason; TES honours the same tokens.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecureHttpTest extends StackTest {

    private static final int PORT = 18130;
    private final Map<String, String> passwords = new java.util.HashMap<>();
    /** Every token handed out here, for the last test's search. */
    private final java.util.List<String> tokens = new java.util.ArrayList<>();
    private long startedAt;

    @BeforeAll
    void startIdentityProviderAndSecureIngest() throws Exception {
        startedAt = System.currentTimeMillis();
        stack.identityProvider(true);
        for (String line : Files.readAllLines(stack.dataDir().resolve("keycloak/users"))) {
            String[] f = line.split(" ");
            passwords.put(f[0], f[1]);
        }
        stack.startInstance("ingest-secure", "ingest", PORT, Map.of("FLASH_SECURITY", "on", "FLASH_OIDC_URL", stack.oidcUrl()));
        stack.awaitReady("ingest-secure", Duration.ofSeconds(120));
    }

    @AfterAll
    void stopThem() throws Exception {
        stack.stop("ingest-secure");
        stack.identityProvider(false);
    }

    /** An access token from the real provider by the password grant (what `flash login` does). */
    private String token(String user) throws Exception {
        String form = "grant_type=password&client_id=flash-cli&username=" + user + "&password="
                + URLEncoder.encode(passwords.get(user), StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.oidcUrl() + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        String token = json.readTree(r.body()).get("access_token").asText();
        tokens.add(token);
        return token;
    }

    private HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path))
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

    @Test
    void noTokenAForgedTokenOrAnotherOwnersNameIsRefusedWithItsReason() throws Exception {
        HttpResponse<String> anonymous = call("GET", "/jobs", null, null);
        assertEquals(401, anonymous.statusCode());
        assertTrue(anonymous.body().contains("sign in first"), anonymous.body());
        String alice = token("alice");
        String forged = alice.substring(0, alice.lastIndexOf('.') + 1) + "c2lnbmVkIGJ5IG5vYm9keQ";
        assertEquals(401, call("GET", "/jobs", forged, null).statusCode(), "a token whose signature does not verify");
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

    /** Last: no password or token of this class's run is in any service's log or on any topic (records since it began). */
    @Test
    @Order(Integer.MAX_VALUE)
    void noSecretUsedHereIsInAnyLogOrOnAnyTopic() throws Exception {
        assertFalse(tokens.isEmpty(), "the tests before handed out tokens");
        java.util.List<String> secrets = new java.util.ArrayList<>(passwords.values());
        for (String t : tokens) secrets.add(t.substring(t.lastIndexOf('.') + 1)); // a token's signature: only the token has it
        java.util.List<String> found = new java.util.ArrayList<>();
        try (var logs = Files.list(stack.logs())) {
            for (java.nio.file.Path log : logs.toList()) {
                String text = Files.readString(log, StandardCharsets.ISO_8859_1);
                for (String secret : secrets) if (text.contains(secret)) found.add(log.getFileName() + " holds a secret");
            }
        }
        java.util.Properties props = new java.util.Properties();
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
                    for (var header : record.headers()) bytes += new String(header.value() == null ? new byte[0] : header.value(), StandardCharsets.ISO_8859_1);
                    for (String secret : secrets) if (bytes.contains(secret)) found.add(record.topic() + " offset " + record.offset() + " holds a secret");
                }
            }
            assertTrue(records > 0, "read the topics");
            for (var e : ends.entrySet()) assertTrue(consumer.position(e.getKey()) >= e.getValue(), "read all of " + e.getKey());
        }
        assertEquals(java.util.List.of(), found);
    }
}
