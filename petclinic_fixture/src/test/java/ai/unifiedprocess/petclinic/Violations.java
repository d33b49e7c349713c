package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

/**
 * How every sensor fails: one failure per rule that lists all its violations, so one run shows
 * everything to fix, and the first line says which kind of rule broke.
 */
final class Violations {

    private Violations() {
    }

    /** Fails with "{kind} rule broken: {rule} (n violations)" and one line per violation. */
    static void failIfAny(String kind, String rule, List<String> violations) {
        if (!violations.isEmpty()) {
            fail(kind + " rule broken: " + rule + " (" + violations.size() + " violation"
                    + (violations.size() == 1 ? "" : "s") + ")\n  "
                    + String.join("\n  ", violations));
        }
    }

    /** "none" or the items joined with commas: what a spec has, in a message. */
    static String listOrNone(List<String> items) {
        return items.isEmpty() ? "none" : String.join(", ", items);
    }
}
