package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.domain.Visit;
import ai.unifiedprocess.petclinic.service.OwnerService;
import ai.unifiedprocess.petclinic.service.VisitService;

/** Owner information with pets and their visits. */
public class OwnerDetailsView {

    private final OwnerService owners;
    private final VisitService visits;

    public OwnerDetailsView(OwnerService owners, VisitService visits) {
        this.owners = owners;
        this.visits = visits;
    }

    public String render(int ownerId) {
        Owner owner = owners.get(ownerId);
        StringBuilder out = new StringBuilder("Owner Information\n");
        out.append("Name: ").append(owner.getFullName()).append('\n')
                .append("Address: ").append(owner.getAddress()).append('\n')
                .append("City: ").append(owner.getCity()).append('\n')
                .append("Telephone: ").append(owner.getTelephone()).append('\n')
                .append("Pets and Visits\n");
        for (Pet pet : owner.getPets()) {
            out.append("- ").append(pet.getName()).append(" (").append(pet.getType().name())
                    .append(", born ").append(pet.getBirthDate()).append(")\n");
            for (Visit visit : visits.visitsOf(pet.getId())) {
                out.append("    ").append(visit.getDate()).append(' ')
                        .append(visit.getDescription()).append('\n');
            }
        }
        return out.toString();
    }
}
