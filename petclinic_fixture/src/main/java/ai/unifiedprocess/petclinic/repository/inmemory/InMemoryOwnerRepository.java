package ai.unifiedprocess.petclinic.repository.inmemory;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.repository.OwnerRepository;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Owners in a map; ids count up from 1 like a database sequence. */
public class InMemoryOwnerRepository implements OwnerRepository {

    private static final Comparator<Owner> BY_NAME =
            Comparator.comparing(Owner::getLastName).thenComparing(Owner::getFirstName);

    private final Map<Integer, Owner> owners = new LinkedHashMap<>();
    private int nextOwnerId = 1;
    private int nextPetId = 1;

    @Override
    public synchronized Owner save(Owner owner) {
        if (owner.isNew()) {
            owner.setId(nextOwnerId++);
        }
        for (Pet pet : owner.getPets()) {
            if (pet.getId() == null) {
                pet.setId(nextPetId++);
            }
        }
        owners.put(owner.getId(), owner);
        return owner;
    }

    @Override
    public synchronized Optional<Owner> findById(int id) {
        return Optional.ofNullable(owners.get(id));
    }

    @Override
    public synchronized List<Owner> findByLastNameStartingWith(String prefix) {
        String wanted = prefix.toLowerCase(Locale.ROOT);
        return owners.values().stream()
                .filter(owner -> owner.getLastName().toLowerCase(Locale.ROOT).startsWith(wanted))
                .sorted(BY_NAME)
                .toList();
    }

    @Override
    public synchronized List<Owner> findAll() {
        return owners.values().stream().sorted(BY_NAME).toList();
    }
}
