package io.flash.e2e;

import io.flash.schema.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Pulls from a real registry with htpasswd auth (Debian's docker-registry, started here): the
 * executor pulls with the credentials it is configured with, and says what the registry answered
 * when they are wrong.
 */
class RegistryPullTest extends StackTest {

    private static final String REGISTRY = "127.0.0.1:15000";
    private Process registry;
    private Path dir;

    @BeforeAll
    void startRegistry() throws Exception {
        dir = stack.dataDir().resolve("registry-test");
        Files.createDirectories(dir.resolve("data"));
        sh("htpasswd -Bbn lab s3cret > " + dir.resolve("htpasswd"));
        Files.writeString(dir.resolve("config.yml"), """
                version: 0.1
                storage:
                  filesystem:
                    rootdirectory: %s
                http:
                  addr: %s
                auth:
                  htpasswd:
                    realm: flash-test
                    path: %s
                """.formatted(dir.resolve("data"), REGISTRY, dir.resolve("htpasswd")));
        registry = new ProcessBuilder("docker-registry", "serve", dir.resolve("config.yml").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!listening()) {
            if (System.nanoTime() > deadline || !registry.isAlive()) {
                fail("docker-registry did not start (install Debian's docker-registry and apache2-utils): "
                        + Files.readString(dir.resolve("registry.log")));
            }
            Thread.sleep(200);
        }
        sh("echo s3cret | docker login " + REGISTRY + " -u lab --password-stdin");
        for (String tag : List.of("1", "2")) {
            sh("docker tag flash/shell:1 " + REGISTRY + "/lab/shell:" + tag + " && docker push -q " + REGISTRY + "/lab/shell:" + tag
                    + " && docker rmi " + REGISTRY + "/lab/shell:" + tag);
        }
        sh("docker logout " + REGISTRY);
    }

    @AfterAll
    void stopRegistry() throws Exception {
        restartExecutor(Map.of());
        sh("docker rmi " + REGISTRY + "/lab/shell:1 " + REGISTRY + "/lab/shell:2 2>/dev/null || true");
        if (registry != null) registry.destroy();
    }

    @Test
    void pullsWithItsCredentialsAndExplainsWrongOnes() throws Exception {
        restartExecutor(Map.of("FLASH_REGISTRY_AUTH", REGISTRY + "=lab:s3cret"));
        JobResult pulled = run(job("private-image", image(task("hi", "echo pulled", 0.25, "32Mi"), REGISTRY + "/lab/shell:1")));
        assertEquals(JobState.SUCCEEDED, pulled.getState(), () -> String.valueOf(pulled.getReason()));
        assertTrue(pulled.getTasks().get(0).getStdoutTail().contains("pulled"));

        restartExecutor(Map.of("FLASH_REGISTRY_AUTH", REGISTRY + "=lab:wrong-password"));
        JobResult refused = run(job("wrong-credentials", image(task("hi", "echo never", 0.25, "32Mi"), REGISTRY + "/lab/shell:2")));
        assertEquals(JobState.FAILED, refused.getState());
        TaskSummary t = refused.getTasks().get(0);
        assertEquals(FailureClass.INFRASTRUCTURE, t.getFailureClass());
        assertTrue(t.getReason().toLowerCase().contains("unauthorized") || t.getReason().toLowerCase().contains("authentication"),
                t.getReason());
        assertFalse(t.getReason().contains("wrong-password"), "credentials are never shown");
        assertEquals(0, t.getUserFailures(), "a pull failure does not spend the user's attempts");
    }

    private static TaskSpec image(TaskSpec task, String image) {
        task.setImage(image);
        return task;
    }

    private void restartExecutor(Map<String, String> env) throws Exception {
        stack.kill("executor");
        stack.startService("executor", env);
        stack.awaitReady("executor", Duration.ofSeconds(120));
    }

    private static boolean listening() {
        try (Socket ignored = new Socket("127.0.0.1", 15000)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void sh(String command) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) fail("'" + command.replace("s3cret", "***") + "' failed: " + out);
    }
}
