package io.flash.executor.docker;

import com.github.dockerjava.api.exception.BadRequestException;
import com.github.dockerjava.api.exception.InternalServerErrorException;
import com.github.dockerjava.api.exception.NotFoundException;
import io.flash.executor.engine.EngineRefusal;
import io.flash.schema.FailureClass;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class DockerRefusalsTest {

    @Test
    void whatTheTaskAsksForAndImagesThatDoNotExistAreTheUsers() {
        EngineRefusal bad = DockerRefusals.of(new BadRequestException("Status 400: {\"message\":\"invalid environment variable: A=\"}"), null);
        assertEquals(FailureClass.USER, bad.failureClass());
        assertEquals("the engine refused what the task asks for: invalid environment variable: A=", bad.reason());
        EngineRefusal missing = DockerRefusals.of(new IllegalStateException("pulling lab/nope:1 failed: manifest unknown",
                new NotFoundException("manifest unknown")), "lab/nope:1");
        assertEquals(FailureClass.USER, missing.failureClass());
        assertTrue(missing.reason().contains("lab/nope:1 cannot be found"), missing.reason());
    }

    @Test
    void anEngineOrRegistryThatFailsOrRefusesTheNodesCredentialsIsTheInfrastructures() {
        assertEquals(FailureClass.INFRASTRUCTURE, DockerRefusals.of(new InternalServerErrorException(
                "Status 500: {\"message\":\"Get https://registry/v2/: dial tcp: lookup registry: no such host\"}"), "registry/x:1").failureClass());
        assertEquals(FailureClass.INFRASTRUCTURE, DockerRefusals.of(new IllegalStateException(
                "pulling 127.0.0.1:5000/lab/x:1 failed: unauthorized: authentication required"), "127.0.0.1:5000/lab/x:1").failureClass());
    }
}
