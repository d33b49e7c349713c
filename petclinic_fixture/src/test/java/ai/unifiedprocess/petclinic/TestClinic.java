package ai.unifiedprocess.petclinic;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

/** A fixed "today" so that date rules give the same answer on every day of the year. */
final class TestClinic {

    static final LocalDate TODAY = LocalDate.of(2024, 5, 1);
    static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-01T10:00:00Z"), ZoneOffset.UTC);

    private TestClinic() {
    }

    static PetClinic empty() {
        return PetClinic.empty(CLOCK);
    }

    static PetClinic withSampleData() {
        return PetClinic.withSampleData(CLOCK);
    }
}
