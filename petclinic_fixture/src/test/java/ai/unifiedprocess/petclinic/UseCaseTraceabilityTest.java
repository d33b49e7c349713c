package ai.unifiedprocess.petclinic;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sensor: the use-case specs in docs/use_cases/ and the {@link UseCase} annotations on tests
 * agree on use cases and their scenarios. A spec's Status line is an assertion (ADR-007): Done or
 * Tested switches on the demand that the main scenario and every alternative flow have a test.
 * Business rules are BusinessRuleTraceabilityTest's, test cases TestCaseTraceabilityTest's.
 */
@Tag("sensor")
class UseCaseTraceabilityTest {

    private static final Set<String> STATUSES = Set.of(
            "Draft", "Approved", "In Progress", "Implemented", "Done", "Tested", "Deprecated");
    private static final Pattern TEST_CLASS = Pattern.compile("UC(\\d{3})\\w*Test");
    private static final String KIND = "Traceability";

    private static Path useCaseDir;
    private static Map<String, UseCaseSpec> specs;
    private static List<TestTrace<UseCase>> traces;

    @BeforeAll
    static void readSpecsAndAnnotations() {
        useCaseDir = ProjectLayout.basedir().resolve("docs/use_cases");
        specs = new LinkedHashMap<>();
        for (UseCaseSpec spec : UseCaseSpec.readAll(useCaseDir)) {
            specs.putIfAbsent(spec.id(), spec);
        }
        traces = TestTrace.findAll(UseCase.class);
    }

    @Test
    void specsAreWellFormed() {
        List<String> violations = new ArrayList<>();
        if (specs.isEmpty()) {
            violations.add("docs/use_cases/ holds no UC-###-slug.md spec (looked in " + useCaseDir
                    + ")");
        }
        Map<String, List<Path>> byId = new LinkedHashMap<>();
        for (UseCaseSpec spec : UseCaseSpec.readAll(useCaseDir)) {
            byId.computeIfAbsent(spec.id(), id -> new ArrayList<>()).add(spec.file());
            String file = ProjectLayout.relative(spec.file());
            spec.problems().forEach(problem -> violations.add(file + ": " + problem));
            if (!spec.status().isEmpty() && !STATUSES.contains(spec.status())) {
                violations.add(file + ": unknown status \"" + spec.status() + "\" (known: "
                        + STATUSES.stream().sorted().collect(Collectors.joining(", ")) + ")");
            }
        }
        byId.forEach((id, files) -> {
            if (files.size() > 1) {
                violations.add(id + " is defined by " + files.size() + " files: " + files.stream()
                        .map(ProjectLayout::relative).collect(Collectors.joining(", ")));
            }
        });
        Violations.failIfAny(KIND, "use-case specs are malformed", violations);
    }

    @Test
    void everyAnnotationPointsAtAnExistingUseCaseAndScenario() {
        List<String> violations = new ArrayList<>();
        for (TestTrace<UseCase> trace : traces) {
            UseCaseSpec spec = specs.get(trace.annotation().id());
            if (spec == null) {
                violations.add(trace.where() + ": " + render(trace.annotation(), false)
                        + " points at no use case (docs/use_cases/ has: "
                        + Violations.listOrNone(specs.keySet().stream().toList()) + ")");
            } else if (!spec.hasScenario(trace.annotation().scenario())) {
                violations.add(trace.where() + ": " + render(trace.annotation(), true)
                        + " points at no alternative flow of " + spec.id() + " ("
                        + ProjectLayout.relative(spec.file()) + " has: "
                        + Violations.listOrNone(spec.flows()) + ")");
            }
        }
        Violations.failIfAny(KIND, "@UseCase annotations point at nothing", violations);
    }

    @Test
    void everyAnnotationSitsOnItsOwnUseCaseTestClass() {
        List<String> violations = new ArrayList<>();
        for (TestTrace<UseCase> trace : traces) {
            String expected = trace.annotation().id().replace("-", "");
            Matcher name = TEST_CLASS.matcher(trace.testClass().getSimpleName());
            if (!name.matches()) {
                violations.add(trace.where() + ": " + render(trace.annotation(), false)
                        + " sits on a class not named after a use case; move it to a "
                        + expected + "...Test class");
            } else if (!("UC" + name.group(1)).equals(expected)) {
                violations.add(trace.where() + ": " + render(trace.annotation(), false)
                        + " sits on the test class of UC-" + name.group(1) + "; move it to a "
                        + expected + "...Test class");
            }
        }
        Violations.failIfAny(KIND, "@UseCase annotations sit on the wrong test class", violations);
    }

    @Test
    void everyScenarioOfADoneOrTestedUseCaseHasARunningTest() {
        List<String> violations = new ArrayList<>();
        for (UseCaseSpec spec : specs.values()) {
            if (!spec.assertsCoverage()) {
                continue;
            }
            List<String> covered = traces.stream()
                    .filter(trace -> trace.annotation().id().equals(spec.id()) && trace.runs())
                    .map(trace -> trace.annotation().scenario())
                    .toList();
            List<String> scenarios = new ArrayList<>();
            scenarios.add(UseCaseSpec.MAIN_SCENARIO);
            scenarios.addAll(spec.flows());
            for (String scenario : scenarios) {
                if (covered.contains(scenario)) {
                    continue;
                }
                String what = scenario.equals(UseCaseSpec.MAIN_SCENARIO)
                        ? "the " + scenario : "alternative flow " + scenario;
                String annotation = scenario.equals(UseCaseSpec.MAIN_SCENARIO)
                        ? "@UseCase(id=\"" + spec.id() + "\")"
                        : "@UseCase(id=\"" + spec.id() + "\", scenario=\"" + scenario + "\")";
                violations.add(spec.id() + " is " + spec.status() + " ("
                        + ProjectLayout.relative(spec.file()) + "), but no enabled test covers "
                        + what + "; add a test with " + annotation + " in a "
                        + spec.id().replace("-", "") + "...Test class, or set the status back");
            }
        }
        Violations.failIfAny(KIND, "Done/Tested use cases lack tests", violations);
    }

    /** The annotation as written, reduced to what a message is about. */
    private static String render(UseCase annotation, boolean withScenario) {
        return "@UseCase(id=\"" + annotation.id() + "\""
                + (withScenario ? ", scenario=\"" + annotation.scenario() + "\"" : "") + ")";
    }
}
