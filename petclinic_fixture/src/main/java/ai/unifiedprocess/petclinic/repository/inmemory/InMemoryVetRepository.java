package ai.unifiedprocess.petclinic.repository.inmemory;

import ai.unifiedprocess.petclinic.domain.Vet;
import ai.unifiedprocess.petclinic.repository.VetRepository;
import java.util.ArrayList;
import java.util.List;

/** Vets in a list, in the order they were saved. */
public class InMemoryVetRepository implements VetRepository {

    private final List<Vet> vets = new ArrayList<>();
    private int nextId = 1;

    @Override
    public synchronized Vet save(Vet vet) {
        if (vet.getId() == null) {
            vet.setId(nextId++);
            vets.add(vet);
        }
        return vet;
    }

    @Override
    public synchronized List<Vet> findAll() {
        return List.copyOf(vets);
    }
}
