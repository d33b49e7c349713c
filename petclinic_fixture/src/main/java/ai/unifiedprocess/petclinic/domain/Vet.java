package ai.unifiedprocess.petclinic.domain;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** A veterinarian with zero or more specialties. */
public class Vet extends Person {

    private Integer id;
    private final Set<Specialty> specialties =
            new TreeSet<>(Comparator.comparing(Specialty::name));

    public Vet(String firstName, String lastName) {
        super(firstName, lastName);
    }

    public Integer getId() {
        return id;
    }

    public void setId(Integer id) {
        this.id = id;
    }

    public void addSpecialty(Specialty specialty) {
        specialties.add(specialty);
    }

    /** Specialties sorted by name. */
    public List<Specialty> getSpecialties() {
        return List.copyOf(specialties);
    }
}
