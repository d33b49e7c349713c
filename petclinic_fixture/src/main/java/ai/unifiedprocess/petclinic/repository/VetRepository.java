package ai.unifiedprocess.petclinic.repository;

import ai.unifiedprocess.petclinic.domain.Vet;
import java.util.List;

/** The clinic's veterinarians. */
public interface VetRepository {

    Vet save(Vet vet);

    List<Vet> findAll();
}
