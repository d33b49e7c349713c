package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.service.FieldError;
import ai.unifiedprocess.petclinic.service.PetData;
import ai.unifiedprocess.petclinic.service.PetService;
import ai.unifiedprocess.petclinic.service.ValidationException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** "Add Pet" (UC-004) for one owner. */
public class PetFormView {

    private final PetService pets;
    private final int ownerId;
    private final Map<String, String> errors = new LinkedHashMap<>();
    private Pet saved;

    public PetFormView(PetService pets, int ownerId) {
        this.pets = pets;
        this.ownerId = ownerId;
    }

    /** The birth date arrives as typed (ISO yyyy-mm-dd); a bad date is a field error. */
    public boolean submit(String name, String birthDate, String type) {
        errors.clear();
        LocalDate date = null;
        if (birthDate != null && !birthDate.isBlank()) {
            try {
                date = LocalDate.parse(birthDate.trim());
            } catch (DateTimeParseException e) {
                errors.put("birthDate", "is not a date (yyyy-mm-dd)");
                return false;
            }
        }
        try {
            saved = pets.addPet(ownerId, new PetData(name, date, type));
            return true;
        } catch (ValidationException e) {
            for (FieldError error : e.getErrors()) {
                errors.putIfAbsent(error.field(), error.message());
            }
            return false;
        }
    }

    public Map<String, String> errors() {
        return Map.copyOf(errors);
    }

    public Optional<Pet> savedPet() {
        return Optional.ofNullable(saved);
    }

    public String typeChoices() {
        return String.join(", ", pets.petTypes().stream().map(type -> type.name()).toList());
    }
}
