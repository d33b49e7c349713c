package ai.unifiedprocess.petclinic.service;

import java.time.LocalDate;

/** What the visit form submits; a missing date means today. */
public record VisitData(LocalDate date, String description) {
}
