package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Specialty;
import ai.unifiedprocess.petclinic.domain.Vet;
import ai.unifiedprocess.petclinic.service.VetService;
import java.util.List;

/** "Veterinarians" (UC-006): name and specialties, one vet per line. */
public class VetListView {

    private final VetService vets;

    public VetListView(VetService vets) {
        this.vets = vets;
    }

    public List<String> rows() {
        return vets.vets().stream().map(VetListView::row).toList();
    }

    public String render() {
        return "Veterinarians\n" + String.join("\n", rows()) + "\n";
    }

    private static String row(Vet vet) {
        List<Specialty> specialties = vet.getSpecialties();
        String names = specialties.isEmpty()
                ? "none"
                : String.join(" ", specialties.stream().map(Specialty::name).toList());
        return vet.getFullName() + " | " + names;
    }
}
