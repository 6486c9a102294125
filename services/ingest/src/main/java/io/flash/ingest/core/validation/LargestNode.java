package io.flash.ingest.core.validation;

import io.flash.schema.Capacity;

/** The largest node any framework reports, and which framework has it (for messages): what a task may ask for at most. */
public record LargestNode(Capacity capacity, String cpuFramework, String memoryFramework) {
}
