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
 * Sensor: the test-case specs in docs/test_cases/ and the {@link TestCase} annotations on tests
 * agree. Automated on a spec is an assertion, like Done on a use case (ADR-007): it switches on
 * the demand that the tests automating it exist and run.
 */
@Tag("sensor")
class TestCaseTraceabilityTest {

    private static final Set<String> STATUSES =
            Set.of("Draft", "Approved", "Automated", "Deprecated");
    private static final Pattern USE_CASE_TEST_CLASS = Pattern.compile("UC(\\d{3})\\w*(Test|IT)");
    private static final String KIND = "Traceability";

    private static List<TestCaseSpec> allSpecs;
    private static Map<String, TestCaseSpec> specs;
    private static Map<String, UseCaseSpec> useCases;
    private static List<TestTrace<TestCase>> traces;

    @BeforeAll
    static void readSpecsAndAnnotations() {
        Path docs = ProjectLayout.basedir().resolve("docs");
        allSpecs = TestCaseSpec.readAll(docs.resolve("test_cases"));
        specs = new LinkedHashMap<>();
        allSpecs.forEach(spec -> specs.putIfAbsent(spec.id(), spec));
        useCases = new LinkedHashMap<>();
        UseCaseSpec.readAll(docs.resolve("use_cases"))
                .forEach(spec -> useCases.putIfAbsent(spec.id(), spec));
        traces = TestTrace.findAll(TestCase.class);
    }

    @Test
    void specsAreWellFormed() {
        List<String> violations = new ArrayList<>();
        Map<String, List<String>> files = new LinkedHashMap<>();
        for (TestCaseSpec spec : allSpecs) {
            String file = ProjectLayout.relative(spec.file());
            files.computeIfAbsent(spec.id(), id -> new ArrayList<>()).add(file);
            spec.problems().forEach(problem -> violations.add(file + ": " + problem));
            if (!spec.status().isEmpty() && !STATUSES.contains(spec.status())) {
                violations.add(file + ": unknown status \"" + spec.status() + "\" (known: "
                        + STATUSES.stream().sorted().collect(Collectors.joining(", ")) + ")");
            }
        }
        files.forEach((id, defining) -> {
            if (defining.size() > 1) {
                violations.add(id + " is defined by " + defining.size() + " files: "
                        + String.join(", ", defining));
            }
        });
        Violations.failIfAny(KIND, "test-case specs are malformed", violations);
    }

    @Test
    void everyTestCasePointsAtAnExistingUseCaseAndScenario() {
        List<String> violations = new ArrayList<>();
        for (TestCaseSpec spec : specs.values()) {
            if (spec.useCase().isEmpty()) {
                continue; // specsAreWellFormed reports the missing line
            }
            String file = ProjectLayout.relative(spec.file());
            UseCaseSpec useCase = useCases.get(spec.useCase());
            if (useCase == null) {
                violations.add(file + ": " + spec.id() + " tests " + spec.useCase()
                        + ", which has no spec in docs/use_cases/ (there are: "
                        + Violations.listOrNone(useCases.keySet().stream().toList()) + ")");
            } else if (!useCase.hasScenario(spec.scenario())) {
                violations.add(file + ": " + spec.id() + " tests \"" + spec.scenario() + "\" of "
                        + useCase.id() + ", which is no scenario of it ("
                        + ProjectLayout.relative(useCase.file()) + " has: "
                        + UseCaseSpec.MAIN_SCENARIO
                        + (useCase.flows().isEmpty() ? "" : ", "
                                + String.join(", ", useCase.flows()))
                        + ")");
            }
        }
        Violations.failIfAny(KIND, "test cases point at no use case", violations);
    }

    @Test
    void everyAnnotationPointsAtAnExistingTestCaseOfItsUseCase() {
        List<String> violations = new ArrayList<>();
        for (TestTrace<TestCase> trace : traces) {
            String id = trace.annotation().id();
            String named = trace.where() + ": @TestCase(id=\"" + id + "\")";
            TestCaseSpec spec = specs.get(id);
            if (spec == null) {
                violations.add(named + " points at no test case (docs/test_cases/ has: "
                        + Violations.listOrNone(specs.keySet().stream().toList()) + ")");
                continue;
            }
            Matcher owner = USE_CASE_TEST_CLASS.matcher(trace.testClass().getSimpleName());
            if (owner.matches() && !spec.useCase().isEmpty()
                    && !spec.useCase().equals("UC-" + owner.group(1))) {
                violations.add(named + " sits on a test of UC-" + owner.group(1) + ", but "
                        + id + " tests " + spec.useCase() + " ("
                        + ProjectLayout.relative(spec.file()) + ")");
            }
        }
        Violations.failIfAny(KIND, "@TestCase annotations point at nothing", violations);
    }

    @Test
    void everyAutomatedTestCaseHasItsRunningTests() {
        List<String> violations = new ArrayList<>();
        for (TestCaseSpec spec : specs.values()) {
            String file = ProjectLayout.relative(spec.file());
            List<TestTrace<TestCase>> automating = traces.stream()
                    .filter(trace -> trace.annotation().id().equals(spec.id()))
                    .toList();
            // The spec's own list of its tests must stay true whatever the status.
            for (String named : spec.automatedBy()) {
                boolean carries =
                        automating.stream().anyMatch(trace -> trace.where().equals(named));
                if (!carries) {
                    violations.add(file + ": " + spec.id() + " is automated by " + named
                            + " (its Automated By line), but no such test method carries"
                            + " @TestCase(id=\"" + spec.id() + "\")");
                }
            }
            if (spec.assertsAutomation() && automating.stream().noneMatch(TestTrace::runs)) {
                violations.add(spec.id() + " is Automated (" + file + "), but no enabled test"
                        + " carries @TestCase(id=\"" + spec.id() + "\"); annotate the test that"
                        + " automates it, or set the status back");
            }
        }
        Violations.failIfAny(KIND, "Automated test cases lack their tests", violations);
    }
}
