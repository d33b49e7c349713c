package ai.unifiedprocess.petclinic.service;

import ai.unifiedprocess.petclinic.domain.Vet;
import ai.unifiedprocess.petclinic.repository.VetRepository;
import java.util.Comparator;
import java.util.List;

/** The list of veterinarians (UC-006). */
public class VetService {

    private final VetRepository vets;

    public VetService(VetRepository vets) {
        this.vets = vets;
    }

    /** Sorted by last name, then first name. */
    public List<Vet> vets() {
        return vets.findAll().stream()
                .sorted(Comparator.comparing(Vet::getLastName).thenComparing(Vet::getFirstName))
                .toList();
    }
}
