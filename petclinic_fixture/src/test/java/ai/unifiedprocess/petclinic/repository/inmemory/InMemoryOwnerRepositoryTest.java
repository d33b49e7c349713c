package ai.unifiedprocess.petclinic.repository.inmemory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.domain.Pet;
import ai.unifiedprocess.petclinic.domain.PetType;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryOwnerRepositoryTest {

    private final InMemoryOwnerRepository repository = new InMemoryOwnerRepository();

    @Test
    void assignsIdsToNewOwnersAndTheirPets() {
        Owner owner = new Owner("Eduardo", "Rodriquez", "2693 Commerce St.", "McFarland",
                "6085558763");
        owner.addPet(new Pet("Rosy", LocalDate.of(2011, 4, 17), new PetType(3, "dog")));
        owner.addPet(new Pet("Jewel", LocalDate.of(2010, 3, 7), new PetType(3, "dog")));

        repository.save(owner);

        assertEquals(1, owner.getId());
        assertEquals(List.of(1, 2), owner.getPets().stream().map(Pet::getId).toList());
        assertSame(owner, repository.findById(1).orElseThrow());
    }

    @Test
    void findsByLastNamePrefixSortedByName() {
        repository.save(new Owner("Maria", "Escobito", "345 Maple St.", "Madison", "6085557683"));
        repository.save(new Owner("Betty", "Davis", "638 Cardinal Ave.", "Sun Prairie",
                "6085551749"));
        repository.save(new Owner("Harold", "Davis", "563 Friendly St.", "Windsor",
                "6085553198"));

        assertEquals(List.of("Betty", "Harold"), repository.findByLastNameStartingWith("davis")
                .stream().map(Owner::getFirstName).toList());
        assertEquals(3, repository.findAll().size());
    }
}
