package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.service.DuplicateOwnerException;
import ai.unifiedprocess.petclinic.service.OwnerData;
import ai.unifiedprocess.petclinic.service.OwnerService;
import ai.unifiedprocess.petclinic.service.ValidationException;
import ai.unifiedprocess.petclinic.ui.OwnerFormView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UC003RegisterOwnerTest {

    private final PetClinic clinic = TestClinic.empty();
    private final OwnerService owners = clinic.owners();

    @Test
    @UseCase(id = "UC-003")
    @TestCase(id = "TC-001")
    void registersOwnerWithValidData() {
        OwnerFormView form = clinic.newOwnerForm()
                .enter("firstName", "Jean")
                .enter("lastName", "Coleman")
                .enter("address", "105 N. Lake St.")
                .enter("city", "Monona")
                .enter("telephone", "6085552654");

        assertTrue(form.submit());

        assertEquals("New Owner Created", form.notice());
        int id = form.savedOwnerId().orElseThrow();
        assertTrue(clinic.ownerDetailsView().render(id).contains("Name: Jean Coleman"));
        assertEquals(List.of(id), owners.findByLastName("Cole").stream().map(Owner::getId).toList());
    }

    @Test
    @UseCase(id = "UC-003", scenario = "A1: Validation Errors", businessRules = {"BR-001"})
    void rejectsMissingLastName() {
        ValidationException rejected = assertThrows(ValidationException.class,
                () -> owners.register(new OwnerData("Jean", " ", "105 N. Lake St.", "Monona",
                        "6085552654")));

        assertEquals("lastName: is required", rejected.getMessage());
        assertTrue(owners.findByLastName("").isEmpty());
    }

    @Test
    @UseCase(id = "UC-003", scenario = "A1: Validation Errors", businessRules = {"BR-001"})
    void rejectsTelephoneWithAnythingButUpToTenDigits() {
        for (String telephone : List.of("608-555-2654", "60855526541", "phone")) {
            ValidationException rejected = assertThrows(ValidationException.class,
                    () -> owners.register(new OwnerData("Jean", "Coleman", "105 N. Lake St.",
                            "Monona", telephone)),
                    telephone);
            assertTrue(rejected.hasErrorFor("telephone"), telephone);
        }
    }

    @Test
    @UseCase(id = "UC-003", scenario = "A1: Validation Errors")
    void formShowsEveryRejectedFieldAndKeepsTheInput() {
        OwnerFormView form = clinic.newOwnerForm()
                .enter("firstName", "Jean")
                .enter("telephone", "12ab");

        assertFalse(form.submit());

        assertEquals(Map.of("lastName", "is required", "address", "is required",
                "city", "is required", "telephone", "must be 1 to 10 digits"), form.errors());
        assertTrue(form.render().contains("firstName: Jean\n"));
        assertTrue(form.savedOwnerId().isEmpty());
    }

    @Test
    @UseCase(id = "UC-003", scenario = "A2: Duplicate Owner", businessRules = {"BR-002"})
    void refusesDuplicateOwner() {
        Owner first = owners.register(new OwnerData("Jean", "Coleman", "105 N. Lake St.",
                "Monona", "6085552654"));

        DuplicateOwnerException refused = assertThrows(DuplicateOwnerException.class,
                () -> owners.register(new OwnerData("jean", "COLEMAN", "elsewhere", "Madison",
                        "6085552654")));

        assertEquals(first.getId(), refused.getExistingOwnerId());
        assertEquals(1, owners.findByLastName("Coleman").size());
    }

    @Test
    @UseCase(id = "UC-003", businessRules = {"BR-002"})
    void acceptsSameNameWithAnotherTelephone() {
        owners.register(new OwnerData("Jean", "Coleman", "105 N. Lake St.", "Monona",
                "6085552654"));

        Owner second = owners.register(new OwnerData("Jean", "Coleman", "2 Main St.", "Madison",
                "6085550001"));

        assertNotNull(second.getId());
        assertEquals(2, owners.findByLastName("Coleman").size());
    }
}
