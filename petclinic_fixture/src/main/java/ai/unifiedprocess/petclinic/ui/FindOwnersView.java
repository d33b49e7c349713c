package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.service.OwnerService;
import java.util.List;
import java.util.Optional;

/** "Find Owners" (UC-001): a search box and a result list. */
public class FindOwnersView {

    private final OwnerService owners;
    private List<Owner> results = List.of();
    private String message = "";

    public FindOwnersView(OwnerService owners) {
        this.owners = owners;
    }

    public void search(String lastName) {
        results = owners.findByLastName(lastName);
        message = results.isEmpty() ? "has not been found" : "";
    }

    public List<Owner> results() {
        return results;
    }

    public String message() {
        return message;
    }

    /** A single match opens that owner's details directly (UC-001 A2). */
    public Optional<Integer> ownerToOpen() {
        return results.size() == 1 ? Optional.of(results.get(0).getId()) : Optional.empty();
    }

    public String render() {
        if (results.isEmpty()) {
            return "Find Owners\nLast name " + message + "\n";
        }
        StringBuilder out = new StringBuilder("Owners\n");
        for (Owner owner : results) {
            out.append(owner.getFullName()).append(" | ").append(owner.getAddress())
                    .append(" | ").append(owner.getCity()).append(" | ")
                    .append(owner.getTelephone()).append('\n');
        }
        return out.toString();
    }
}
