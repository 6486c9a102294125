package io.flash.cli;

import picocli.CommandLine.Option;

/** How a command that submits a job waits for its result: shared by submit and resubmit (a picocli mixin). */
final class WaitOptions {

    @Option(names = "--wait", description = "wait for the job's result and print it, with progress meanwhile")
    boolean wait;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600", description = "how long --wait waits (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;
}
