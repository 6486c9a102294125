package io.flash.planner.dag;

import io.flash.schema.FailureClass;

/**
 * Decides whether a failed attempt is tried again. Failures of the user's program spend the task's
 * own budget (maxAttempts); failures of the infrastructure spend a separate budget, so a lost node
 * never uses up a user's retries.
 */
public record RetryPolicy(int infrastructureRetries) {

    public static RetryPolicy defaults() {
        return new RetryPolicy(3);
    }

    public static boolean isInfrastructure(FailureClass failureClass) {
        return failureClass == FailureClass.NODE_LOST || failureClass == FailureClass.FRAMEWORK_LOST
                || failureClass == FailureClass.INFRASTRUCTURE;
    }

    /** Whether the task gets another attempt, given the failures counted so far including this one. */
    public boolean retry(FailureClass failureClass, int userFailures, int infraFailures, int maxAttempts) {
        if (failureClass == FailureClass.CANCELLED || failureClass == FailureClass.UNSCHEDULABLE) {
            return false;
        }
        if (isInfrastructure(failureClass)) {
            return infraFailures <= infrastructureRetries;
        }
        return userFailures < maxAttempts;
    }
}
