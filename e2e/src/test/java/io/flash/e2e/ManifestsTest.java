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
 * Validates the Kubernetes manifests without a cluster: every document is read strictly into the
 * official Kubernetes object model (fabric8 kubernetes-model: an unknown or misspelt field, or a
 * value of the wrong type, fails), then checked for what Flash needs: apiVersion/kind/metadata.name and
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

    private static final ObjectMapper STRICT = new ObjectMapper(new YAMLFactory())
            .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    private static final Map<String, Class<?>> MODEL = Map.ofEntries(
            Map.entry("apps/v1/Deployment", io.fabric8.kubernetes.api.model.apps.Deployment.class),
            Map.entry("apps/v1/StatefulSet", io.fabric8.kubernetes.api.model.apps.StatefulSet.class),
            Map.entry("apps/v1/DaemonSet", io.fabric8.kubernetes.api.model.apps.DaemonSet.class),
            Map.entry("v1/Service", io.fabric8.kubernetes.api.model.Service.class),
            Map.entry("v1/ConfigMap", io.fabric8.kubernetes.api.model.ConfigMap.class),
            Map.entry("v1/Secret", io.fabric8.kubernetes.api.model.Secret.class),
            Map.entry("v1/Namespace", io.fabric8.kubernetes.api.model.Namespace.class),
            Map.entry("v1/ServiceAccount", io.fabric8.kubernetes.api.model.ServiceAccount.class),
            Map.entry("v1/PersistentVolumeClaim", io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class),
            Map.entry("rbac.authorization.k8s.io/v1/Role", io.fabric8.kubernetes.api.model.rbac.Role.class),
            Map.entry("rbac.authorization.k8s.io/v1/RoleBinding", io.fabric8.kubernetes.api.model.rbac.RoleBinding.class),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRole", io.fabric8.kubernetes.api.model.rbac.ClusterRole.class),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRoleBinding", io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class));

    @Test
    void everyDocumentIsAValidKubernetesObject() throws Exception {
        try (var dir = Files.list(K8S)) {
            for (Path file : dir.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml")).toList()) {
                for (JsonNode doc : documents(file)) {
                    String type = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
                    Class<?> model = MODEL.get(type);
                    assertNotNull(model, file + ": unexpected " + type);
                    Object parsed = assertDoesNotThrow(() -> STRICT.treeToValue(doc, model), file + ": not a valid " + type);
                    noUnknownFields(parsed, file.getFileName() + " " + type);
                }
            }
        }
    }

    /** The model keeps fields it does not know in "additional properties": there must be none, at any depth. */
    private static void noUnknownFields(Object node, String path) throws Exception {
        if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) noUnknownFields(list.get(i), path + "[" + i + "]");
            return;
        }
        if (node instanceof Map<?, ?> map) {
            for (var e : map.entrySet()) noUnknownFields(e.getValue(), path + "." + e.getKey());
            return;
        }
        if (node == null || !node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) return;
        for (java.lang.reflect.Method m : node.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || !m.getName().startsWith("get") || m.getDeclaringClass() == Object.class) continue;
            Object value = m.invoke(node);
            if (m.getName().equals("getAdditionalProperties")) {
                assertTrue(value == null || ((Map<?, ?>) value).isEmpty(), path + ": unknown fields " + value);
            } else {
                noUnknownFields(value, path + "." + m.getName().substring(3));
            }
        }
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
                if (!Set.of("Namespace", "ClusterRole", "ClusterRoleBinding").contains(doc.path("kind").asText())) { // cluster-wide
                    assertEquals("flash", doc.path("metadata").path("namespace").asText(), where + ": namespace");
                }
                if (WORKLOADS.contains(doc.path("kind").asText())) workloads.put(doc.path("metadata").path("name").asText(), doc);
                if (doc.path("kind").asText().equals("ConfigMap")) config = doc;
            }
        }
        assertEquals(Set.of("ingest", "dag-planner", "dispatcher", "framework-ecs", "framework-batch", "executor"), workloads.keySet());
        assertNotNull(config);
        assertEquals("1", config.path("data").path("FLASH_STANDBY_REPLICAS").asText(), "Streams services keep a warm standby");
        assertEquals("3", config.path("data").path("FLASH_TOPIC_REPLICATION").asText(), "three replicas of every topic");
        assertEquals("3", config.path("data").path("KAFKA_STREAMS_REPLICATION_FACTOR").asText(), "and of every changelog");
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
