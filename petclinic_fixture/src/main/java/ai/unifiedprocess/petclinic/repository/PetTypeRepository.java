package ai.unifiedprocess.petclinic.repository;

import ai.unifiedprocess.petclinic.domain.PetType;
import java.util.List;
import java.util.Optional;

/** The pet types the clinic knows. */
public interface PetTypeRepository {

    List<PetType> findAll();

    Optional<PetType> findByName(String name);
}
