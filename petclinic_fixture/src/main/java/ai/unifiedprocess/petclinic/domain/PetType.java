package ai.unifiedprocess.petclinic.domain;

/** The kind of animal (cat, dog, ...): reference data the clinic maintains. */
public record PetType(int id, String name) {
}
