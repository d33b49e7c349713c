package ai.unifiedprocess.petclinic.service;

import java.time.LocalDate;

/** What the pet form submits; the type is the pet type's name. */
public record PetData(String name, LocalDate birthDate, String type) {
}
