package io.flash.executor.engine;

import io.flash.schema.FailureClass;

/**
 * Whose fault a failure to prepare or start a container is, and the engine's words for it: the
 * engine refusing what the task asks for, or an image that does not exist, is the user's (it would
 * fail the same way anywhere, so it is not retried on the platform's budget); an engine or registry
 * that does not answer, or refuses the node's own credentials, is the infrastructure's. Each
 * {@link ContainerRuntime} tells which from its engine's own failures.
 */
public record EngineRefusal(FailureClass failureClass, String reason) {
}
