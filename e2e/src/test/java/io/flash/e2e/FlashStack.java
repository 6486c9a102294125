package io.flash.e2e;

import io.flash.common.setup.PlatformSetup;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.*;

/**
 * The whole platform on this machine for a test: the project's own infra scripts start a real Kafka
 * broker and Apicurio Registry, and the five services run as separate processes from their packaged
 * Quarkus apps, exactly as {@code bin/flash up} runs them. Ports are offset from the defaults so a
 * running {@code bin/flash up} is not disturbed.
 */
public final class FlashStack implements AutoCloseable {

    /** The shared platform's object store (infra/s3/start.sh, as bin/flash up starts it). */
    public static final int S3_PORT = 18300;
    /** Keycloak of the secure-mode tests (infra/keycloak/start.sh); its health on the port after. */
    public static final int KEYCLOAK_PORT = 18180;
    public static final List<String> SERVICES = List.of("ingest", "dag-planner", "dispatcher", "framework-ecs", "executor");

    private final Path home = Path.of(System.getProperty("flash.home", "..")).toAbsolutePath().normalize();
    private final Path dir;
    private final int kafkaPort, registryPort, httpBase, brokers;
    /** The secure mode: a broker with SCRAM logins and ACLs, Keycloak, every service with its own principal. */
    private final boolean secure;
    /** Settings every service of this platform gets (e.g. a simulated fleet for the executor). */
    private final Map<String, String> serviceEnv;
    private final Map<String, Process> services = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new HashMap<>();
    /** Only the shared platform has an object store (one store port on the machine): the others run as bin/flash up does without one. */
    private boolean objectStore;
    /** Set once {@link #close} begins: what ends from then on was stopped by it. */
    private volatile boolean closing;
    private static FlashStack shared;

    /**
     * One platform for all end-to-end test classes of this JVM (starting it costs ~15 s), stopped
     * when the JVM exits.
     */
    public static synchronized FlashStack shared() throws Exception {
        if (shared == null) {
            FlashStack stack = new FlashStack();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    stack.close();
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }));
            shared = stack.start();
        }
        return shared;
    }

    /** The shared platform: one broker, on the ports the build gives (or their defaults). */
    private FlashStack() {
        this(Path.of(System.getProperty("flash.e2e.dir", "target/e2e")), Integer.getInteger("flash.e2e.kafka-port", 19092),
                Integer.getInteger("flash.e2e.registry-port", 18081), Integer.getInteger("flash.e2e.http-base", 18090), 1, Map.of());
        this.objectStore = true;
    }

    /** Another platform beside the shared one: its own data, ports and Kafka of {@code brokers} nodes (1 or 3). */
    FlashStack(Path dir, int kafkaPort, int registryPort, int httpBase, int brokers, Map<String, String> serviceEnv) {
        this(dir, kafkaPort, registryPort, httpBase, brokers, serviceEnv, false);
    }

    /** A platform in the secure mode (as {@code bin/flash up --secure}), beside the shared one. */
    static FlashStack secure(Path dir, int kafkaPort, int registryPort, int httpBase) {
        return new FlashStack(dir, kafkaPort, registryPort, httpBase, 1, Map.of(), true);
    }

    private FlashStack(Path dir, int kafkaPort, int registryPort, int httpBase, int brokers, Map<String, String> serviceEnv,
                       boolean secure) {
        this.secure = secure;
        this.dir = dir.toAbsolutePath();
        this.kafkaPort = kafkaPort;
        this.registryPort = registryPort;
        this.httpBase = httpBase;
        this.brokers = brokers;
        this.serviceEnv = serviceEnv;
    }

    public String apiUrl() {
        return httpUrl("ingest");
    }

    /** The HTTP root (health, metrics) of one service. */
    public String httpUrl(String service) {
        return "http://127.0.0.1:" + (httpBase + SERVICES.indexOf(service));
    }

    /**
     * SIGQUIT to every service instance: each JVM writes a thread dump to its log. Returns the
     * processing threads of each ({@link ThreadDumps}), for a test that found the stack stalled.
     */
    public String threadDumps() {
        StringBuilder out = new StringBuilder();
        try {
            for (var entry : services.entrySet()) new ProcessBuilder("kill", "-QUIT", Long.toString(entry.getValue().pid())).start().waitFor();
            Thread.sleep(2_000);
            for (String name : services.keySet()) {
                out.append(ThreadDumps.summary(name, Files.readString(logs().resolve(name + ".log"))));
            }
        } catch (Exception e) {
            out.append("(no thread dumps: ").append(e).append(")\n");
        }
        return out.toString();
    }

    /** kill -9 of one service instance, as a crash would. */
    public void kill(String name) throws InterruptedException {
        Process p = services.remove(name);
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /**
     * Starts again each of the five services that an earlier test class left stopped or dead (a test
     * that failed between a kill and its restart), so one failure does not stall every class after
     * it; returns their names.
     */
    public synchronized List<String> restartStopped() throws Exception {
        List<String> restarted = new ArrayList<>();
        for (String service : SERVICES) {
            Process p = services.get(service);
            if (p != null && p.isAlive()) continue;
            startService(service, Map.of());
            restarted.add(service);
        }
        for (String service : restarted) awaitReady(service, Duration.ofSeconds(120));
        return restarted;
    }

    /** Whether the instance ended on its own within the time (as a reclaimed spot node does). */
    public boolean awaitExit(String name, Duration timeout) throws InterruptedException {
        Process p = services.get(name);
        return p == null || p.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** A clean stop (SIGTERM) of one service instance. */
    public void stop(String name) throws InterruptedException {
        Process p = services.remove(name);
        if (p != null) {
            p.destroy();
            if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
        }
    }

    /** SIGSTOP / SIGCONT: the instance freezes (no heartbeats, no processing) and later resumes where it was. */
    public void pause(String name, boolean paused) throws Exception {
        long pid = services.get(name).pid();
        Process signal = new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", Long.toString(pid)).inheritIO().start();
        if (signal.waitFor() != 0) throw new IllegalStateException("could not signal " + name);
    }

    /** Starts Flash's identity provider (Keycloak, realm flash) for the secure-mode tests, or stops it. */
    public void identityProvider(boolean running) throws Exception {
        script(running ? "infra/keycloak/start.sh" : "infra/keycloak/stop.sh");
    }

    /** What a bin/flash command printed (stdout and stderr) and its exit code. */
    public record CommandResult(int exit, String output) {
    }

    /** bin/flash as a person runs it against this platform (its data, ports and mode), with stdin and settings of its own. */
    public CommandResult flash(String stdin, Map<String, String> extraEnv, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", home.resolve("bin/flash").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        // All of this platform's settings: `bin/flash test` exports its own (FLASH_BOOTSTRAP_SERVERS,
        // FLASH_REGISTRY_URL...) to this JVM, and bin/flash keeps what it inherits.
        pb.environment().putAll(environment());
        pb.environment().putAll(Map.of("FLASH_HTTP_PORT_BASE", Integer.toString(httpBase), "FLASH_API_URL", apiUrl(),
                "FLASH_SECURITY", secure ? "on" : "off"));
        pb.environment().putAll(extraEnv);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            if (stdin != null) in.write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(180, java.util.concurrent.TimeUnit.SECONDS)) throw new IllegalStateException("bin/flash " + String.join(" ", args) + " hangs");
        return new CommandResult(p.exitValue(), out);
    }

    /** A password (or the platform client's secret) infra/keycloak/start.sh drew. */
    public String identityPassword(String name) throws IOException {
        for (String line : Files.readAllLines(dir.resolve("keycloak/users"))) {
            String[] f = line.split(" ");
            if (f[0].equals(name)) return f[1];
        }
        throw new IllegalStateException("no " + name + " in " + dir.resolve("keycloak/users"));
    }

    /** Where infra/kafka/start.sh draws the secure mode's logins: one file per principal. */
    public Path credentials() {
        return dir.resolve("kafka/credentials");
    }

    /** A principal's broker login in the secure mode (a service's, flash-admin, or a user's: alice, bob). */
    public io.flash.common.access.KafkaLogin login(String principal) throws IOException {
        return io.flash.common.setup.SecuritySetup.login(credentials(), principal);
    }

    /** The issuer of the identity provider's tokens. */
    public String oidcUrl() {
        return "http://127.0.0.1:" + KEYCLOAK_PORT + "/realms/flash";
    }

    /** Stops the broker (as an outage would) or starts it again on the same data. */
    public void broker(boolean running) throws Exception {
        script(running ? "infra/kafka/start.sh" : "infra/kafka/stop.sh");
    }

    /** kill -9 of the broker, as a crash of its machine would; {@code broker(true)} starts it again on its data. */
    public void killBroker() throws Exception {
        killBroker(1);
    }

    /** kill -9 of Kafka node {@code node} (1..brokers); nothing when it is dead already. */
    public void killBroker(int node) throws Exception {
        Optional<ProcessHandle> broker = ProcessHandle.of(Long.parseLong(Files.readString(brokerPidFile(node)).trim()));
        if (broker.isEmpty() || !broker.get().isAlive()) return;
        Process signal = new ProcessBuilder("kill", "-9", Long.toString(broker.get().pid())).inheritIO().start();
        if (signal.waitFor() != 0) throw new IllegalStateException("could not kill the broker (pid " + broker.get().pid() + ")");
        while (broker.get().isAlive()) Thread.sleep(50);
    }

    /** As infra/lib/common.sh names them: node 1 keeps the one-node layout. */
    private Path brokerPidFile(int node) {
        return dir.resolve(node == 1 ? "kafka.pid" : "kafka-" + node + ".pid");
    }

    /** The readiness status code of one service instance (200 ready, 503 not), or -1 when it does not answer. */
    public int readiness(String name) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.get(name) + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    public String bootstrapServers() {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < brokers; i++) nodes.add("127.0.0.1:" + (kafkaPort + 2 * i)); // as infra/lib/common.sh numbers them
        return String.join(",", nodes);
    }

    public String registryUrl() {
        return "http://127.0.0.1:" + registryPort;
    }

    /** The project's root (bin/flash, examples/). */
    public Path home() {
        return home;
    }

    public Path dataDir() {
        return dir;
    }

    public Path logs() {
        return dir.resolve("logs");
    }

    public FlashStack start() throws Exception {
        try {
            return startAll();
        } catch (Exception | Error e) {
            // What did start is stopped: the next test class must not find its ports taken.
            try {
                close();
            } catch (Exception stopping) {
                e.addSuppressed(stopping);
            }
            throw e;
        }
    }

    private FlashStack startAll() throws Exception {
        deleteTree(dir);
        Files.createDirectories(logs());
        script("infra/kafka/start.sh");
        if (secure) identityProvider(true); // the secure registry checks tokens against it
        script("infra/registry/start.sh");
        if (objectStore) script("infra/s3/start.sh");
        script("infra/images/build-all.sh");
        RequiredImages.require("infra/images/build-all.sh", List.of("flash/shell:1", "flash/tools:1"));
        PlatformSetup.Settings settings = new PlatformSetup.Settings(bootstrapServers(), registryUrl(), 3, List.of("ecs"), 3, 8,
                secure ? login(io.flash.common.setup.KafkaGrants.ADMIN) : io.flash.common.access.KafkaLogin.NONE);
        PlatformSetup.createTopics(settings, true);
        String platformToken = null;
        if (secure) {
            io.flash.common.setup.SecuritySetup.apply(settings, credentials());
            platformToken = io.flash.common.setup.SchemaSetup.platformToken(oidcUrl(), identityPassword("flash-platform"));
            io.flash.common.setup.SchemaSetup.registerAll(registryUrl(), List.of("ecs"), platformToken);
        }
        PlatformSetup.setBackwardCompatibility(registryUrl(), platformToken);
        for (String service : SERVICES) {
            startService(service, Map.of());
        }
        for (String service : SERVICES) {
            awaitReady(service, Duration.ofSeconds(120));
        }
        return this;
    }

    /** One of the five services, on its usual port. */
    public void startService(String name, Map<String, String> extraEnv) throws IOException {
        startInstance(name, name, httpBase + SERVICES.indexOf(name), extraEnv);
    }

    /**
     * Another instance of a service (a second framework, another executor node, a second dispatcher),
     * named {@code instance} for {@link #kill}, {@link #pause} and its log file.
     */
    public void startInstance(String instance, String service, int httpPort, Map<String, String> extraEnv) throws IOException {
        Path jar = home.resolve("services/" + service + "/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: build the services first (mvn -B install -DskipTests)");
        }
        ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.port=" + httpPort, "-jar", jar.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logs().resolve(instance + ".log").toFile()));
        pb.environment().putAll(environment());
        pb.environment().put("FLASH_NODE_ID", "e2e-node-1");
        pb.environment().put("FLASH_NODE_CPU", "2");
        pb.environment().put("FLASH_NODE_MEMORY", "2Gi");
        pb.environment().put("FLASH_NODE_DISK_TYPE", "hdd");
        pb.environment().putAll(serviceEnv);
        if (secure) {
            io.flash.common.access.KafkaLogin login = login(service.equals("framework-ecs")
                    ? io.flash.common.setup.KafkaGrants.frameworkPrincipal(extraEnv.getOrDefault("FLASH_FRAMEWORK_ID", "ecs"))
                    : "flash-" + service);
            pb.environment().put("FLASH_KAFKA_USER", login.user());
            pb.environment().put("FLASH_KAFKA_PASSWORD", login.password());
            pb.environment().put("FLASH_TOPICS_CREATE_ON_START", "false");
            pb.environment().put("FLASH_SECURITY", "on");
            pb.environment().put("FLASH_OIDC_URL", oidcUrl());
        }
        pb.environment().putAll(extraEnv);
        ports.put(instance, httpPort);
        Process process = pb.start();
        services.put(instance, process);
        process.onExit().thenAccept(ended -> reportUnexpectedExit(instance, ended));
    }

    /**
     * An instance that ends while this platform still counts on it (not stopped, killed or closed by
     * the test) is named with its exit code in the test output and its log: a JVM killed by a signal
     * (137 = SIGKILL) writes nothing itself, and the tests after it would only see a platform that stalls.
     */
    private void reportUnexpectedExit(String instance, Process ended) {
        if (closing || services.get(instance) != ended) return;
        String line = String.format("%s [flash-stack %s] %s (pid %d) ended on its own with exit code %d%n",
                Instant.now(), dir.getFileName(), instance, ended.pid(), ended.exitValue());
        System.out.print(line);
        try {
            Files.writeString(logs().resolve(instance + ".log"), line, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("(could not append to " + instance + ".log: " + e + ")");
        }
    }

    public void awaitReady(String name, Duration timeout) throws Exception {
        int port = ports.get(name);
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            Process p = services.get(name);
            if (p != null && !p.isAlive()) {
                throw new IllegalStateException(name + " exited with " + p.exitValue() + "; see " + logs().resolve(name + ".log"));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
                last = r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(300);
        }
        throw new IllegalStateException(name + " not ready after " + timeout + ": " + last);
    }

    private Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("FLASH_HOME", home.toString());
        env.put("FLASH_DATA_DIR", dir.toString());
        env.put("FLASH_KAFKA_PORT", Integer.toString(kafkaPort));
        env.put("FLASH_KAFKA_BROKERS", Integer.toString(brokers));
        env.put("FLASH_REGISTRY_PORT", Integer.toString(registryPort));
        env.put("FLASH_BOOTSTRAP_SERVERS", bootstrapServers());
        env.put("FLASH_REGISTRY_URL", registryUrl());
        env.put("FLASH_STATE_DIR", dir.resolve("state").toString());
        // Shorter than the defaults (15 s + 15 s) so the framework-down test waits less; still many heartbeats long.
        env.put("FLASH_DISPATCHER_HEARTBEAT_TIMEOUT", "10s");
        env.put("FLASH_DISPATCHER_REDISPATCH_GRACE", "5s");
        // Below those 15 s by more than a heartbeat's delay, as docs/scheduling.md requires.
        env.put("FLASH_FRAMEWORK_FENCE_AFTER_ABSENCE", "12s");
        env.put("FLASH_KEYCLOAK_PORT", Integer.toString(KEYCLOAK_PORT));
        env.put("FLASH_OIDC_URL", oidcUrl()); // whatever this JVM inherited
        env.put("FLASH_API_URL", apiUrl()); // where Keycloak may send the console's browser back to
        if (secure) env.put("FLASH_SECURITY", "on");
        if (objectStore) {
            // As bin/flash up: the store's port for infra/s3/start.sh, its endpoint and keys for the services.
            env.put("FLASH_S3_PORT", Integer.toString(S3_PORT));
            env.put("FLASH_S3_ENDPOINT", s3Endpoint());
            s3Keys().forEach(env::put);
        }
        return env;
    }

    public String s3Endpoint() {
        return "http://127.0.0.1:" + S3_PORT;
    }

    /** FLASH_S3_ACCESS_KEY and FLASH_S3_SECRET_KEY as infra/s3/start.sh drew them (none before it started). */
    public Map<String, String> s3Keys() {
        Map<String, String> keys = new HashMap<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("s3/credentials"))) {
                String[] kv = line.split("=", 2);
                if (kv.length == 2) keys.put(kv[0], kv[1]);
            }
        } catch (IOException notYet) {
            // the store has not started: nothing to give
        }
        return keys;
    }

    private void script(String path) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve(path).toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logs().resolve("infra.log").toFile()));
        pb.environment().putAll(environment());
        Process p = pb.start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(path + " failed; see " + logs().resolve("infra.log") + ":\n"
                    + Files.readString(logs().resolve("infra.log")));
        }
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() throws Exception {
        closing = true;
        List<String> reversed = new ArrayList<>(services.keySet());
        Collections.reverse(reversed);
        for (String name : reversed) {
            Process p = services.get(name);
            if (p.isAlive()) pause(name, false);
            p.destroy();
            if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
        }
        try {
            script("infra/keycloak/stop.sh");
            if (objectStore) script("infra/s3/stop.sh");
            script("infra/registry/stop.sh");
        } finally {
            // A cluster with a node killed waits 30 s per node for a controlled shutdown that cannot
            // finish; its data is thrown away, so it is killed.
            for (int node = 1; node <= brokers && brokers > 1; node++) {
                if (Files.exists(brokerPidFile(node))) killBroker(node);
            }
            script("infra/kafka/stop.sh");
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) return;
        try (var walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
