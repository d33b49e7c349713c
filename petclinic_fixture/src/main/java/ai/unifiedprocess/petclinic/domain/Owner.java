package ai.unifiedprocess.petclinic.domain;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** A pet owner: the aggregate root for pets. */
public class Owner extends Person {

    private Integer id;
    private String address;
    private String city;
    private String telephone;
    private final List<Pet> pets = new ArrayList<>();

    public Owner(String firstName, String lastName, String address, String city, String telephone) {
        super(firstName, lastName);
        this.address = address;
        this.city = city;
        this.telephone = telephone;
    }

    public Integer getId() {
        return id;
    }

    public void setId(Integer id) {
        this.id = id;
    }

    public boolean isNew() {
        return id == null;
    }

    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    public String getCity() {
        return city;
    }

    public void setCity(String city) {
        this.city = city;
    }

    public String getTelephone() {
        return telephone;
    }

    public void setTelephone(String telephone) {
        this.telephone = telephone;
    }

    public List<Pet> getPets() {
        return Collections.unmodifiableList(pets);
    }

    public void addPet(Pet pet) {
        pets.add(pet);
    }

    public Optional<Pet> findPet(int petId) {
        return pets.stream().filter(pet -> pet.getId() != null && pet.getId() == petId).findFirst();
    }

    public Optional<Pet> findPet(String name) {
        return pets.stream().filter(pet -> pet.getName().equalsIgnoreCase(name)).findFirst();
    }
}
