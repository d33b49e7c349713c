package ai.unifiedprocess.petclinic.service;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.domain.Visit;
import ai.unifiedprocess.petclinic.repository.OwnerRepository;
import ai.unifiedprocess.petclinic.repository.VisitRepository;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** Recording visits of pets (UC-005). */
public class VisitService {

    private final OwnerRepository owners;
    private final VisitRepository visits;
    private final Clock clock;

    public VisitService(OwnerRepository owners, VisitRepository visits, Clock clock) {
        this.owners = owners;
        this.visits = visits;
        this.clock = clock;
    }

    public Visit addVisit(int ownerId, int petId, VisitData data) {
        Owner owner = owners.findById(ownerId)
                .orElseThrow(() -> new NotFoundException("Owner " + ownerId + " does not exist"));
        Pet pet = owner.findPet(petId)
                .orElseThrow(() -> new NotFoundException(
                        owner.getFullName() + " has no pet with id " + petId));
        // BR-003: the form may leave the date empty; the visit is then today's.
        LocalDate date = data.date() == null ? LocalDate.now(clock) : data.date();
        String description = data.description() == null ? "" : data.description().trim();
        List<FieldError> errors = new ArrayList<>();
        if (description.isEmpty()) {
            errors.add(new FieldError("description", "is required"));
        }
        if (date.isBefore(pet.getBirthDate())) {
            errors.add(new FieldError("date", "must not be before " + pet.getName() + "'s birth date "
                    + pet.getBirthDate()));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        return visits.save(new Visit(petId, date, description));
    }

    public List<Visit> visitsOf(int petId) {
        return visits.findByPetId(petId);
    }
}
