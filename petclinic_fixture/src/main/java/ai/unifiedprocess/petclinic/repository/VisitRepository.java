package ai.unifiedprocess.petclinic.repository;

import ai.unifiedprocess.petclinic.domain.Visit;
import java.util.List;

/** Visits, looked up by the pet they belong to. */
public interface VisitRepository {

    Visit save(Visit visit);

    /** The pet's visits, oldest first. */
    List<Visit> findByPetId(int petId);
}
