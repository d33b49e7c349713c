package ai.unifiedprocess.petclinic.repository.inmemory;

import ai.unifiedprocess.petclinic.domain.Visit;
import ai.unifiedprocess.petclinic.repository.VisitRepository;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Visits in a list; lookups filter by pet. */
public class InMemoryVisitRepository implements VisitRepository {

    private final List<Visit> visits = new ArrayList<>();
    private int nextId = 1;

    @Override
    public synchronized Visit save(Visit visit) {
        if (visit.getId() == null) {
            visit.setId(nextId++);
            visits.add(visit);
        }
        return visit;
    }

    @Override
    public synchronized List<Visit> findByPetId(int petId) {
        return visits.stream()
                .filter(visit -> visit.getPetId() == petId)
                .sorted(Comparator.comparing(Visit::getDate).thenComparing(Visit::getId))
                .toList();
    }
}
