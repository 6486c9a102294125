package io.flash.common.setup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flash.common.serde.RegistryConfig;
import io.flash.common.topics.TopicCatalog;
import io.flash.schema.JobSubmission;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * The secure mode's registry part of {@code flash setup}: only the platform may write the schema
 * registry, so setup registers every record schema of the topic catalogue ({@code <topic>-value},
 * as the serdes name them) with a token of the platform's client ({@code flash-platform}, role
 * {@code sr-admin}); the services and clients then only look schemas up.
 */
public final class SchemaSetup {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private SchemaSetup() {
    }

    /** A token of the platform's client by the client-credentials grant. */
    public static String platformToken(String issuer, String clientSecret) throws Exception {
        String form = "grant_type=client_credentials&client_id=flash-platform&client_secret="
                + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8);
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(issuer + "/protocol/openid-connect/token"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("the identity provider at " + issuer + " refused the platform's client (HTTP "
                    + r.statusCode() + "): is its secret the one in $FLASH_DATA_DIR/keycloak/users?");
        }
        return JSON.readTree(r.body()).get("access_token").asText();
    }

    /** Registers (or finds) every schema of the platform's and these frameworks' topics; returns how many. */
    public static int registerAll(String registryUrl, List<String> frameworks, String bearer) throws Exception {
        List<String[]> artifacts = new ArrayList<>();
        for (TopicCatalog.Kind<?> kind : TopicCatalog.PLATFORM) add(artifacts, kind, kind.name());
        for (String f : frameworks) {
            for (TopicCatalog.Kind<?> kind : TopicCatalog.PER_FRAMEWORK) add(artifacts, kind, kind.nameFor(f.trim()));
        }
        for (Class<?> record : records()) { // the state stores' values, named by record (RegistryValueSerdes.forStoredValue)
            Schema schema = (Schema) record.getMethod("getClassSchema").invoke(null);
            artifacts.add(new String[]{schema.getNamespace(), schema.getName(), schema.toString()});
        }
        for (String[] a : artifacts) {
            String url = RegistryConfig.apiUrl(registryUrl) + "/groups/" + a[0] + "/artifacts?ifExists=FIND_OR_CREATE_VERSION";
            ObjectNode body = JSON.createObjectNode().put("artifactId", a[1]).put("artifactType", "AVRO");
            body.putObject("firstVersion").putObject("content").put("content", a[2]).put("contentType", "application/json");
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + bearer)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException("could not register " + a[0] + "/" + a[1] + " at " + registryUrl + ": HTTP " + r.statusCode() + " " + r.body());
            }
        }
        return artifacts.size();
    }

    private static void add(List<String[]> artifacts, TopicCatalog.Kind<?> kind, String topic) throws Exception {
        if (!SpecificRecord.class.isAssignableFrom(kind.valueType())) return; // raw bytes: the dead letters
        Schema schema = (Schema) kind.valueType().getMethod("getClassSchema").invoke(null);
        artifacts.add(new String[]{"default", topic + "-value", schema.toString()});
    }

    /** Every Avro record class of the schemas module (io.flash.schema), read from its jar or directory. */
    static List<Class<?>> records() throws Exception {
        URL location = JobSubmission.class.getProtectionDomain().getCodeSource().getLocation();
        Path path = Path.of(location.toURI());
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(path)) {
            try (var files = Files.walk(path.resolve("io/flash/schema"))) {
                files.map(f -> path.relativize(f).toString()).forEach(names::add);
            }
        } else {
            try (var jar = new JarFile(path.toFile())) {
                jar.stream().map(JarEntry::getName).forEach(names::add);
            }
        }
        List<Class<?>> records = new ArrayList<>();
        for (String name : names) {
            if (!name.startsWith("io/flash/schema/") || !name.endsWith(".class") || name.contains("$")) continue;
            Class<?> type = Class.forName(name.replace('/', '.').replace(".class", ""));
            if (SpecificRecord.class.isAssignableFrom(type)) records.add(type);
        }
        return records;
    }
}
