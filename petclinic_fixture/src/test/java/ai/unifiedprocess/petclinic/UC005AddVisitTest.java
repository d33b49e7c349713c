package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.domain.Visit;
import ai.unifiedprocess.petclinic.service.PetData;
import ai.unifiedprocess.petclinic.ui.VisitFormView;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

// UC-005 is Approved and fully covered: an audit may promote it to Done with sensors green.
class UC005AddVisitTest {

    private final PetClinic clinic = TestClinic.withSampleData();
    private final Owner george = clinic.owners().findByLastName("Franklin").get(0);
    private final Pet leo = clinic.pets().addPet(george.getId(),
            new PetData("Leo", LocalDate.of(2020, 9, 7), "cat"));
    private final VisitFormView form =
            new VisitFormView(clinic.visits(), george.getId(), leo.getId());

    @Test
    @UseCase(id = "UC-005")
    void booksVisitAndShowsItInTheHistory() {
        assertTrue(form.submit(LocalDate.of(2024, 4, 2), "rabies shot"));

        assertEquals("Your visit has been booked", form.notice());
        assertEquals(List.of("2024-04-02 rabies shot"), history());
        assertTrue(clinic.ownerDetailsView().render(george.getId())
                .contains("    2024-04-02 rabies shot"));
    }

    @Test
    @UseCase(id = "UC-005", businessRules = {"BR-003"})
    void visitWithoutDateIsToday() {
        assertTrue(form.submit(null, "check-up"));

        assertEquals(List.of(TestClinic.TODAY + " check-up"), history());
    }

    @Test
    @UseCase(id = "UC-005", scenario = "A1: Missing Description", businessRules = {"BR-001"})
    void rejectsMissingDescription() {
        assertFalse(form.submit(TestClinic.TODAY, "  "));

        assertEquals(Map.of("description", "is required"), form.errors());
        assertTrue(history().isEmpty());
    }

    @Test
    @UseCase(id = "UC-005", scenario = "A2: Visit Before Birth Date", businessRules = {"BR-002"})
    void rejectsVisitBeforeBirthDate() {
        assertFalse(form.submit(LocalDate.of(2020, 9, 6), "neutered"));

        assertEquals(Map.of("date", "must not be before Leo's birth date 2020-09-07"),
                form.errors());
        assertTrue(form.submit(LocalDate.of(2020, 9, 7), "first check"));
    }

    @Test
    @UseCase(id = "UC-005", scenario = "A3: Unknown Pet")
    void reportsPetThatIsNotTheOwners() {
        VisitFormView stale = new VisitFormView(clinic.visits(), george.getId(), 999);

        assertFalse(stale.submit(TestClinic.TODAY, "check-up"));

        assertEquals("George Franklin has no pet with id 999", stale.notice());
    }

    private List<String> history() {
        return form.previousVisits().stream()
                .map((Visit visit) -> visit.getDate() + " " + visit.getDescription())
                .toList();
    }
}
