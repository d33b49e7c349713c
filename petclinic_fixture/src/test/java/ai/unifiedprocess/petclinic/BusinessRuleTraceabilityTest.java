package ai.unifiedprocess.petclinic;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sensor: the business rules of the use-case specs ("### BR-001: Required Fields") and the tests
 * that name them ({@code @UseCase(..., businessRules = {"BR-001"})}) agree. A rule id is local
 * to its use case: UC-003's BR-001 is not UC-005's. Done or Tested on a spec switches on the
 * demand that every one of its rules is exercised by a running test (ADR-007).
 */
@Tag("sensor")
class BusinessRuleTraceabilityTest {

    private static final String KIND = "Traceability";

    private static Map<String, UseCaseSpec> specs;
    private static List<TestTrace<UseCase>> traces;

    @BeforeAll
    static void readSpecsAndAnnotations() {
        specs = new LinkedHashMap<>();
        Path useCaseDir = ProjectLayout.basedir().resolve("docs/use_cases");
        for (UseCaseSpec spec : UseCaseSpec.readAll(useCaseDir)) {
            specs.putIfAbsent(spec.id(), spec);
        }
        traces = TestTrace.findAll(UseCase.class);
    }

    @Test
    void everyRuleATestNamesExists() {
        List<String> violations = new ArrayList<>();
        for (TestTrace<UseCase> trace : traces) {
            String id = trace.annotation().id();
            UseCaseSpec spec = specs.get(id);
            for (String rule : trace.annotation().businessRules()) {
                String named = trace.where() + ": @UseCase(id=\"" + id + "\", businessRules={\""
                        + rule + "\"})";
                if (spec == null) {
                    violations.add(named + " names a rule of " + id
                            + ", which has no spec in docs/use_cases/");
                } else if (!spec.rules().containsKey(rule)) {
                    violations.add(named + " points at no business rule of " + id + " ("
                            + ProjectLayout.relative(spec.file()) + " has: "
                            + Violations.listOrNone(spec.ruleHeadings()) + ")");
                }
            }
        }
        Violations.failIfAny(KIND, "tests name business rules that do not exist", violations);
    }

    @Test
    void everyRuleASpecMentionsIsDefined() {
        List<String> violations = new ArrayList<>();
        for (UseCaseSpec spec : specs.values()) {
            spec.ruleMentions().entrySet().stream()
                    .filter(mention -> !spec.rules().containsKey(mention.getKey()))
                    .sorted(Map.Entry.comparingByValue())
                    .forEach(mention -> violations.add(ProjectLayout.relative(spec.file()) + ":"
                            + mention.getValue() + " mentions " + mention.getKey()
                            + ", which its Business Rules section does not define (it has: "
                            + Violations.listOrNone(spec.ruleHeadings()) + ")"));
        }
        Violations.failIfAny(KIND, "specs mention business rules they do not define", violations);
    }

    @Test
    void everyRuleOfADoneOrTestedUseCaseIsExercised() {
        List<String> violations = new ArrayList<>();
        for (UseCaseSpec spec : specs.values()) {
            if (!spec.assertsCoverage()) {
                continue;
            }
            List<String> exercised = traces.stream()
                    .filter(trace -> trace.annotation().id().equals(spec.id()) && trace.runs())
                    .flatMap(trace -> Arrays.stream(trace.annotation().businessRules()))
                    .toList();
            for (String rule : spec.ruleHeadings()) {
                String ruleId = rule.substring(0, rule.indexOf(':'));
                if (!exercised.contains(ruleId)) {
                    violations.add(spec.id() + " is " + spec.status() + " ("
                            + ProjectLayout.relative(spec.file())
                            + "), but no enabled test exercises business rule " + rule
                            + "; add a test with @UseCase(id=\"" + spec.id()
                            + "\", businessRules={\"" + ruleId + "\"}) in a "
                            + spec.id().replace("-", "") + "...Test class, or set the status back");
                }
            }
        }
        Violations.failIfAny(KIND, "Done/Tested use cases have untested business rules",
                violations);
    }
}
