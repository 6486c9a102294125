package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A structural check of the Kubernetes manifests (no cluster and no schema validator such as
 * kubeconform is installable here): every document parses, has apiVersion/kind/metadata.name and
 * the flash namespace, is listed in the kustomization; every workload's selector matches its pod
 * labels, runs as non-root with probes on its HTTP port, resource requests and a memory limit,
 * and takes its settings from the ConfigMap; Streams services keep standby replicas.
 */
class ManifestsTest {

    private static final Path K8S = Path.of(System.getProperty("flash.home", "..")).resolve("infra/k8s");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> WORKLOADS = Set.of("Deployment", "StatefulSet", "DaemonSet");

    private static List<JsonNode> documents(Path file) throws Exception {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isEmpty()) docs.add(doc);
            }
        }
        return docs;
    }

    @Test
    void manifestsAreCompleteAndConsistent() throws Exception {
        JsonNode kustomization = documents(K8S.resolve("kustomization.yaml")).get(0);
        Set<String> listed = new TreeSet<>();
        kustomization.get("resources").forEach(r -> listed.add(r.asText()));
        Set<String> files = new TreeSet<>();
        try (var dir = Files.list(K8S)) {
            dir.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml")).forEach(files::add);
        }
        assertEquals(files, listed, "every manifest is in the kustomization, and only those");

        Map<String, JsonNode> workloads = new TreeMap<>();
        JsonNode config = null;
        for (String file : files) {
            for (JsonNode doc : documents(K8S.resolve(file))) {
                String where = file + " " + doc.path("kind").asText() + " " + doc.path("metadata").path("name").asText();
                assertFalse(doc.path("apiVersion").asText().isEmpty(), where + ": apiVersion");
                assertFalse(doc.path("metadata").path("name").asText().isEmpty(), where + ": metadata.name");
                if (!doc.path("kind").asText().equals("Namespace")) {
                    assertEquals("flash", doc.path("metadata").path("namespace").asText(), where + ": namespace");
                }
                if (WORKLOADS.contains(doc.path("kind").asText())) workloads.put(doc.path("metadata").path("name").asText(), doc);
                if (doc.path("kind").asText().equals("ConfigMap")) config = doc;
            }
        }
        assertEquals(Set.of("ingest", "dag-planner", "dispatcher", "framework-ecs", "executor"), workloads.keySet());
        assertNotNull(config);
        assertEquals("1", config.path("data").path("FLASH_STANDBY_REPLICAS").asText(), "Streams services keep a warm standby");
        assertEquals("DaemonSet", workloads.get("executor").path("kind").asText());
        for (var e : workloads.entrySet()) {
            JsonNode spec = e.getValue().path("spec"), pod = spec.path("template").path("spec");
            spec.path("selector").path("matchLabels").fields().forEachRemaining(label -> assertEquals(label.getValue().asText(),
                    spec.path("template").path("metadata").path("labels").path(label.getKey()).asText(), e.getKey() + ": selector"));
            assertTrue(pod.path("securityContext").path("runAsNonRoot").asBoolean(), e.getKey() + ": non-root");
            JsonNode container = pod.path("containers").get(0);
            assertTrue(container.path("image").asText().startsWith("flash/" + e.getKey() + ":"), e.getKey() + ": image");
            for (String probe : List.of("readinessProbe", "livenessProbe")) {
                assertEquals("http", container.path(probe).path("httpGet").path("port").asText(), e.getKey() + ": " + probe);
            }
            assertFalse(container.path("resources").path("requests").path("cpu").isMissingNode(), e.getKey() + ": cpu request");
            assertFalse(container.path("resources").path("limits").path("memory").isMissingNode(), e.getKey() + ": memory limit");
            boolean usesConfig = false;
            for (JsonNode from : container.path("envFrom")) usesConfig |= "flash-config".equals(from.path("configMapRef").path("name").asText());
            assertTrue(usesConfig, e.getKey() + ": settings from the ConfigMap");
            if (e.getValue().path("kind").asText().equals("StatefulSet")) {
                assertTrue(spec.path("replicas").asInt() >= 2, e.getKey() + ": a second instance to take over");
            }
        }
    }
}
