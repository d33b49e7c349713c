package ai.unifiedprocess.petclinic.service;

import java.util.List;
import java.util.stream.Collectors;

/** Input broke a business rule; carries every rejected field, not just the first. */
public class ValidationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<FieldError> errors;

    public ValidationException(List<FieldError> errors) {
        super(errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = List.copyOf(errors);
    }

    public List<FieldError> getErrors() {
        return errors;
    }

    public boolean hasErrorFor(String field) {
        return errors.stream().anyMatch(error -> error.field().equals(field));
    }
}
