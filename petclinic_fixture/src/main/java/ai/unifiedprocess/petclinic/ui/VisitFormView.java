package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Visit;
import ai.unifiedprocess.petclinic.service.FieldError;
import ai.unifiedprocess.petclinic.service.NotFoundException;
import ai.unifiedprocess.petclinic.service.ValidationException;
import ai.unifiedprocess.petclinic.service.VisitData;
import ai.unifiedprocess.petclinic.service.VisitService;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** "Add Visit" (UC-005): a new visit plus the pet's previous visits. */
public class VisitFormView {

    private final VisitService visits;
    private final int ownerId;
    private final int petId;
    private final Map<String, String> errors = new LinkedHashMap<>();
    private String notice = "";

    public VisitFormView(VisitService visits, int ownerId, int petId) {
        this.visits = visits;
        this.ownerId = ownerId;
        this.petId = petId;
    }

    public boolean submit(LocalDate date, String description) {
        errors.clear();
        notice = "";
        try {
            visits.addVisit(ownerId, petId, new VisitData(date, description));
            notice = "Your visit has been booked";
            return true;
        } catch (ValidationException e) {
            for (FieldError error : e.getErrors()) {
                errors.putIfAbsent(error.field(), error.message());
            }
            return false;
        } catch (NotFoundException e) {
            notice = e.getMessage();
            return false;
        }
    }

    public Map<String, String> errors() {
        return Map.copyOf(errors);
    }

    public String notice() {
        return notice;
    }

    public List<Visit> previousVisits() {
        return visits.visitsOf(petId);
    }
}
