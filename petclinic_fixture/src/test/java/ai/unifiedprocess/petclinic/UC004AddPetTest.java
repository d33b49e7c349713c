package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.ui.PetFormView;
import java.util.Map;
import org.junit.jupiter.api.Test;

// UC-004 is a Draft: A2, BR-002 and BR-003 are implemented but not yet proven by a test.
class UC004AddPetTest {

    private final PetClinic clinic = TestClinic.withSampleData();
    private final Owner george = clinic.owners().findByLastName("Franklin").get(0);
    private final PetFormView form = new PetFormView(clinic.pets(), george.getId());

    @Test
    @UseCase(id = "UC-004")
    void addsPetToOwner() {
        assertTrue(form.submit("Leo", "2020-09-07", "cat"));

        Pet leo = form.savedPet().orElseThrow();
        assertEquals("cat", leo.getType().name());
        assertTrue(clinic.ownerDetailsView().render(george.getId())
                .contains("- Leo (cat, born 2020-09-07)"));
    }

    @Test
    @UseCase(id = "UC-004", scenario = "A1: Duplicate Pet Name", businessRules = {"BR-001"})
    void refusesSecondPetWithTheSameName() {
        assertTrue(form.submit("Leo", "2020-09-07", "cat"));

        assertFalse(form.submit("leo", "2021-01-01", "dog"));

        assertEquals(Map.of("name", "is already used by another pet of this owner"),
                form.errors());
        assertEquals(1, clinic.owners().get(george.getId()).getPets().size());
    }
}
