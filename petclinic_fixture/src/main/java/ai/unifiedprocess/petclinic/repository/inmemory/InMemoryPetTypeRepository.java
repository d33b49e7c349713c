package ai.unifiedprocess.petclinic.repository.inmemory;

import ai.unifiedprocess.petclinic.domain.PetType;
import ai.unifiedprocess.petclinic.repository.PetTypeRepository;
import java.util.List;
import java.util.Optional;

/** A fixed list of pet types, the same the Spring PetClinic ships. */
public class InMemoryPetTypeRepository implements PetTypeRepository {

    private final List<PetType> types = List.of(
            new PetType(1, "bird"),
            new PetType(2, "cat"),
            new PetType(3, "dog"),
            new PetType(4, "hamster"),
            new PetType(5, "lizard"),
            new PetType(6, "snake"));

    @Override
    public List<PetType> findAll() {
        return types;
    }

    @Override
    public Optional<PetType> findByName(String name) {
        return types.stream().filter(type -> type.name().equalsIgnoreCase(name)).findFirst();
    }
}
