package io.flash.executor.files;

import io.flash.common.errors.Messages;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.FailureClass;

/** Why staging failed, classified: a missing file is the user's, an unreachable store is not. */
public record StagingFailure(FailureClass failureClass, String reason) {

    /**
     * An unexpected failure while {@code doing}: the infrastructure's, retried — unless the node's
     * object store settings cannot work, which no retry mends and which is not the user's doing:
     * the attempt is unschedulable here and the reason says what the operator sets.
     */
    public static StagingFailure unexpected(String doing, Exception e) {
        String misconfigured = ObjectStore.misconfiguration(e);
        if (misconfigured != null) return new StagingFailure(FailureClass.UNSCHEDULABLE, doing + ": " + misconfigured);
        return new StagingFailure(FailureClass.INFRASTRUCTURE, doing + ": " + Messages.of(e));
    }
}
