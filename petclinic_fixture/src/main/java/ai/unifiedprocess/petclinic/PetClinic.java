package ai.unifiedprocess.petclinic;

import ai.unifiedprocess.petclinic.domain.Specialty;
import ai.unifiedprocess.petclinic.domain.Vet;
import ai.unifiedprocess.petclinic.repository.OwnerRepository;
import ai.unifiedprocess.petclinic.repository.VetRepository;
import ai.unifiedprocess.petclinic.repository.inmemory.InMemoryOwnerRepository;
import ai.unifiedprocess.petclinic.repository.inmemory.InMemoryPetTypeRepository;
import ai.unifiedprocess.petclinic.repository.inmemory.InMemoryVetRepository;
import ai.unifiedprocess.petclinic.repository.inmemory.InMemoryVisitRepository;
import ai.unifiedprocess.petclinic.service.OwnerData;
import ai.unifiedprocess.petclinic.service.OwnerService;
import ai.unifiedprocess.petclinic.service.PetService;
import ai.unifiedprocess.petclinic.service.VetService;
import ai.unifiedprocess.petclinic.service.VisitService;
import ai.unifiedprocess.petclinic.ui.FindOwnersView;
import ai.unifiedprocess.petclinic.ui.OwnerDetailsView;
import ai.unifiedprocess.petclinic.ui.OwnerFormView;
import ai.unifiedprocess.petclinic.ui.VetListView;
import java.time.Clock;

/**
 * The composition root: the only class that knows the repository implementations. Everything
 * else receives what it needs through its constructor, which keeps the layers testable.
 */
public final class PetClinic {

    private final OwnerService owners;
    private final PetService pets;
    private final VisitService visits;
    private final VetService vets;

    private PetClinic(Clock clock, OwnerRepository ownerRepository, VetRepository vetRepository) {
        InMemoryVisitRepository visitRepository = new InMemoryVisitRepository();
        this.owners = new OwnerService(ownerRepository);
        this.pets = new PetService(ownerRepository, new InMemoryPetTypeRepository(), clock);
        this.visits = new VisitService(ownerRepository, visitRepository, clock);
        this.vets = new VetService(vetRepository);
    }

    /** An empty clinic. */
    public static PetClinic empty(Clock clock) {
        return new PetClinic(clock, new InMemoryOwnerRepository(), new InMemoryVetRepository());
    }

    /** The clinic with the owners and vets the Spring PetClinic demo starts with (abridged). */
    public static PetClinic withSampleData(Clock clock) {
        VetRepository vetRepository = new InMemoryVetRepository();
        Specialty radiology = new Specialty(1, "radiology");
        Specialty surgery = new Specialty(2, "surgery");
        Specialty dentistry = new Specialty(3, "dentistry");
        vetRepository.save(new Vet("James", "Carter"));
        Vet helen = new Vet("Helen", "Leary");
        helen.addSpecialty(radiology);
        vetRepository.save(helen);
        Vet linda = new Vet("Linda", "Douglas");
        linda.addSpecialty(surgery);
        linda.addSpecialty(dentistry);
        vetRepository.save(linda);

        PetClinic clinic = new PetClinic(clock, new InMemoryOwnerRepository(), vetRepository);
        clinic.owners.register(new OwnerData("George", "Franklin", "110 W. Liberty St.", "Madison",
                "6085551023"));
        clinic.owners.register(new OwnerData("Betty", "Davis", "638 Cardinal Ave.", "Sun Prairie",
                "6085551749"));
        clinic.owners.register(new OwnerData("Harold", "Davis", "563 Friendly St.", "Windsor",
                "6085553198"));
        return clinic;
    }

    public OwnerService owners() {
        return owners;
    }

    public PetService pets() {
        return pets;
    }

    public VisitService visits() {
        return visits;
    }

    public VetService vets() {
        return vets;
    }

    public FindOwnersView findOwnersView() {
        return new FindOwnersView(owners);
    }

    public OwnerFormView newOwnerForm() {
        return OwnerFormView.forNewOwner(owners);
    }

    public OwnerDetailsView ownerDetailsView() {
        return new OwnerDetailsView(owners, visits);
    }

    public VetListView vetListView() {
        return new VetListView(vets);
    }
}
