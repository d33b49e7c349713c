package ai.unifiedprocess.petclinic.domain;

import java.time.LocalDate;

/** One visit of a pet at the clinic. */
public class Visit {

    private Integer id;
    private final int petId;
    private final LocalDate date;
    private final String description;

    public Visit(int petId, LocalDate date, String description) {
        this.petId = petId;
        this.date = date;
        this.description = description;
    }

    public Integer getId() {
        return id;
    }

    public void setId(Integer id) {
        this.id = id;
    }

    public int getPetId() {
        return petId;
    }

    public LocalDate getDate() {
        return date;
    }

    public String getDescription() {
        return description;
    }
}
