package io.flash.executor.files;

import java.util.List;

/** What publishing an attempt's outputs gave: the paths published, or why publishing failed. */
public record Published(List<String> outputs, StagingFailure failure) {
}
