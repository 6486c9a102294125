package io.flash.ingest.core.validation;

import io.flash.schema.FieldError;
import io.flash.schema.JobAccepted;
import java.util.List;

/** Either the normalised job or every reason it was refused. */
public record ValidationResult(JobAccepted accepted, List<FieldError> errors) {

    public static ValidationResult accepted(JobAccepted job) {
        return new ValidationResult(job, List.of());
    }

    public static ValidationResult rejected(List<FieldError> errors) {
        return new ValidationResult(null, List.copyOf(errors));
    }

    public boolean isAccepted() {
        return accepted != null;
    }
}
