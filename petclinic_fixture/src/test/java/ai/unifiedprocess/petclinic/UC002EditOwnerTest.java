package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.ui.OwnerFormView;
import java.util.Map;
import org.junit.jupiter.api.Test;

// UC-002 is Approved, not Done: A2 and BR-002 have no test yet. Setting its status to Done
// turns UseCaseTraceabilityTest red until they do.
class UC002EditOwnerTest {

    private final PetClinic clinic = TestClinic.withSampleData();
    private final Owner george = clinic.owners().findByLastName("Franklin").get(0);

    @Test
    @UseCase(id = "UC-002")
    void storesTheChangedFields() {
        OwnerFormView form = OwnerFormView.forExistingOwner(clinic.owners(), george.getId());
        assertTrue(form.render().contains("city: Madison"));

        form.enter("city", "Monona").enter("telephone", "6085550000");

        assertTrue(form.submit());
        assertEquals("Owner Values Updated", form.notice());
        Owner stored = clinic.owners().get(george.getId());
        assertEquals("Monona", stored.getCity());
        assertEquals("6085550000", stored.getTelephone());
    }

    @Test
    @UseCase(id = "UC-002", scenario = "A1: Validation Errors", businessRules = {"BR-001"})
    void keepsTheOldDataWhenAFieldIsBlank() {
        OwnerFormView form = OwnerFormView.forExistingOwner(clinic.owners(), george.getId());

        form.enter("city", "   ");

        assertFalse(form.submit());
        assertEquals(Map.of("city", "is required"), form.errors());
        assertEquals("Madison", clinic.owners().get(george.getId()).getCity());
    }
}
