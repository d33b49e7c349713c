package ai.unifiedprocess.petclinic.repository;

import ai.unifiedprocess.petclinic.domain.Owner;
import java.util.List;
import java.util.Optional;

/** Stores owners together with their pets. */
public interface OwnerRepository {

    /** Stores a new or changed owner; assigns ids to a new owner and to new pets. */
    Owner save(Owner owner);

    Optional<Owner> findById(int id);

    /** Owners whose last name starts with the prefix, ignoring case; sorted by last name. */
    List<Owner> findByLastNameStartingWith(String prefix);

    List<Owner> findAll();
}
