package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.service.OwnerService;
import ai.unifiedprocess.petclinic.ui.FindOwnersView;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UC001FindOwnersTest {

    private final PetClinic clinic = TestClinic.withSampleData();
    private final FindOwnersView view = clinic.findOwnersView();

    @Test
    @UseCase(id = "UC-001")
    void listsOwnersWhoseLastNameStartsWithTheSearch() {
        view.search("Da");

        assertEquals(List.of("Betty Davis", "Harold Davis"), names(view.results()));
        assertTrue(view.render().contains("Betty Davis | 638 Cardinal Ave. | Sun Prairie"));
    }

    @Test
    @UseCase(id = "UC-001", businessRules = {"BR-001"})
    void searchIgnoresCaseAndAnEmptySearchListsEveryone() {
        OwnerService owners = clinic.owners();

        assertEquals(List.of("Betty Davis", "Harold Davis"), names(owners.findByLastName("dAV")));
        assertEquals(List.of("Betty Davis", "Harold Davis", "George Franklin"),
                names(owners.findByLastName("  ")));
    }

    @Test
    @UseCase(id = "UC-001", scenario = "A1: No Owner Found")
    void reportsWhenNoOwnerMatches() {
        view.search("Zz");

        assertTrue(view.results().isEmpty());
        assertEquals("has not been found", view.message());
        assertEquals(Optional.empty(), view.ownerToOpen());
    }

    @Test
    @UseCase(id = "UC-001", scenario = "A2: Single Owner Found")
    void opensTheOnlyMatchDirectly() {
        view.search("Frank");

        Owner george = clinic.owners().findByLastName("Franklin").get(0);
        assertEquals(Optional.of(george.getId()), view.ownerToOpen());
    }

    private static List<String> names(List<Owner> owners) {
        return owners.stream().map(Owner::getFullName).toList();
    }
}
