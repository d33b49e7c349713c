package ai.unifiedprocess.petclinic.service;

/** One rejected input field and why, in words a form can show next to the field. */
public record FieldError(String field, String message) {

    @Override
    public String toString() {
        return field + ": " + message;
    }
}
