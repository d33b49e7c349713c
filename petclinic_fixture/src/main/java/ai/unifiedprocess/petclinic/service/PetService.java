package ai.unifiedprocess.petclinic.service;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.domain.PetType;
import ai.unifiedprocess.petclinic.repository.OwnerRepository;
import ai.unifiedprocess.petclinic.repository.PetTypeRepository;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Adding pets to owners (UC-004). */
public class PetService {

    private final OwnerRepository owners;
    private final PetTypeRepository petTypes;
    private final Clock clock;

    public PetService(OwnerRepository owners, PetTypeRepository petTypes, Clock clock) {
        this.owners = owners;
        this.petTypes = petTypes;
        this.clock = clock;
    }

    public List<PetType> petTypes() {
        return petTypes.findAll();
    }

    public Pet addPet(int ownerId, PetData data) {
        Owner owner = owners.findById(ownerId)
                .orElseThrow(() -> new NotFoundException("Owner " + ownerId + " does not exist"));
        String name = data.name() == null ? "" : data.name().trim();
        List<FieldError> errors = new ArrayList<>();
        if (name.isEmpty()) {
            errors.add(new FieldError("name", "is required"));
        } else if (owner.findPet(name).isPresent()) {
            // BR-001: names tell an owner's pets apart at the front desk.
            errors.add(new FieldError("name", "is already used by another pet of this owner"));
        }
        if (data.birthDate() == null) {
            errors.add(new FieldError("birthDate", "is required"));
        } else if (data.birthDate().isAfter(LocalDate.now(clock))) {
            errors.add(new FieldError("birthDate", "must not be in the future"));
        }
        Optional<PetType> type = data.type() == null
                ? Optional.empty()
                : petTypes.findByName(data.type().trim());
        if (type.isEmpty()) {
            errors.add(new FieldError("type", "must be one of the clinic's pet types"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        Pet pet = new Pet(name, data.birthDate(), type.get());
        owner.addPet(pet);
        owners.save(owner);
        return pet;
    }
}
