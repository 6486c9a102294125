package io.flash.ingest.core.validation;

import io.flash.schema.FieldError;

/** A field's error whose reason may quote what the user wrote: control characters are shown escaped, never passed on. */
final class Reasons {

    private Reasons() {
    }

    static FieldError error(String field, String reason) {
        return new FieldError(field, ContainerRules.escaped(reason));
    }
}
