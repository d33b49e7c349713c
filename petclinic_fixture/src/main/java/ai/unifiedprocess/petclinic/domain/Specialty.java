package ai.unifiedprocess.petclinic.domain;

/** A vet's specialty, e.g. radiology or surgery. */
public record Specialty(int id, String name) {
}
