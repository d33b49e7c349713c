package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sensor: the use-case specs in docs/use_cases/ and the {@link UseCase} annotations on tests
 * agree. A spec's Status line is an assertion (ADR-007): Done or Tested switches on the demand
 * that every part of the spec has a test.
 */
@Tag("sensor")
class UseCaseTraceabilityTest {

    private static final Set<String> STATUSES =
            Set.of("Draft", "Approved", "In Progress", "Implemented", "Done", "Tested", "Deprecated");
    private static final Pattern TEST_CLASS = Pattern.compile("UC(\\d{3})\\w*Test");
    private static final Pattern TEST_CASE_FILE = Pattern.compile("(TC-\\d{3})-[a-z0-9-]+\\.md");

    private static Path basedir;
    private static Map<String, UseCaseSpec> specs;
    private static List<Trace> traces;

    /** One @UseCase on one test method. */
    record Trace(Class<?> testClass, Method method, UseCase annotation) {

        String where() {
            return testClass.getSimpleName() + "." + method.getName();
        }

        String id() {
            return annotation.id();
        }

        boolean disabled() {
            return method.isAnnotationPresent(Disabled.class)
                    || testClass.isAnnotationPresent(Disabled.class);
        }

        /** The annotation as written, reduced to the attributes a message is about. */
        String render(boolean scenario, String... rules) {
            StringBuilder out = new StringBuilder("@UseCase(id=\"" + id() + "\"");
            if (scenario) {
                out.append(", scenario=\"").append(annotation.scenario()).append('"');
            }
            if (rules.length > 0) {
                out.append(", businessRules={").append(Arrays.stream(rules)
                        .map(rule -> '"' + rule + '"').collect(Collectors.joining(", ")))
                        .append('}');
            }
            return out.append(')').toString();
        }
    }

    @BeforeAll
    static void readSpecsAndAnnotations() {
        basedir = ProjectLayout.basedir();
        specs = new LinkedHashMap<>();
        for (UseCaseSpec spec : UseCaseSpec.readAll(basedir.resolve("docs/use_cases"))) {
            specs.putIfAbsent(spec.id(), spec);
        }
        traces = readTraces(ProjectLayout.testClasses());
    }

    @Test
    void specsAreWellFormed() {
        List<String> violations = new ArrayList<>();
        if (specs.isEmpty()) {
            violations.add("docs/use_cases/ holds no UC-###-slug.md spec (looked in "
                    + basedir.resolve("docs/use_cases") + ")");
        }
        Map<String, List<Path>> byId = new LinkedHashMap<>();
        for (UseCaseSpec spec : UseCaseSpec.readAll(basedir.resolve("docs/use_cases"))) {
            byId.computeIfAbsent(spec.id(), id -> new ArrayList<>()).add(spec.file());
            String file = relative(spec.file());
            spec.problems().forEach(problem -> violations.add(file + ": " + problem));
            if (!spec.status().isEmpty() && !STATUSES.contains(spec.status())) {
                violations.add(file + ": unknown status \"" + spec.status() + "\" (known: "
                        + STATUSES.stream().sorted().collect(Collectors.joining(", ")) + ")");
            }
        }
        byId.forEach((id, files) -> {
            if (files.size() > 1) {
                violations.add(id + " is defined by " + files.size() + " files: "
                        + files.stream().map(this::relative).collect(Collectors.joining(", ")));
            }
        });
        violations.addAll(testCaseProblems(basedir.resolve("docs/test_cases")));
        report("use-case and test-case specs are malformed", violations);
    }

    @Test
    void everyAnnotationPointsAtAnExistingUseCaseScenarioAndRule() {
        List<String> violations = new ArrayList<>();
        for (Trace trace : traces) {
            UseCaseSpec spec = specs.get(trace.id());
            if (spec == null) {
                violations.add(trace.where() + ": " + trace.render(false)
                        + " points at no use case (docs/use_cases/ has: "
                        + listOrNone(specs.keySet().stream().toList()) + ")");
                continue;
            }
            String scenario = trace.annotation().scenario();
            if (!scenario.equals(UseCaseSpec.MAIN_SCENARIO) && !spec.flows().contains(scenario)) {
                violations.add(trace.where() + ": " + trace.render(true)
                        + " points at no alternative flow of " + spec.id() + " ("
                        + relative(spec.file()) + " has: " + listOrNone(spec.flows()) + ")");
            }
            for (String rule : trace.annotation().businessRules()) {
                if (!spec.rules().containsKey(rule)) {
                    violations.add(trace.where() + ": " + trace.render(false, rule)
                            + " points at no business rule of " + spec.id() + " ("
                            + relative(spec.file()) + " has: " + listOrNone(spec.ruleHeadings())
                            + ")");
                }
            }
        }
        report("@UseCase annotations point at nothing", violations);
    }

    @Test
    void everyAnnotationSitsOnItsOwnUseCaseTestClass() {
        List<String> violations = new ArrayList<>();
        for (Trace trace : traces) {
            String expected = trace.id().replace("-", "");
            Matcher name = TEST_CLASS.matcher(trace.testClass().getSimpleName());
            if (!name.matches()) {
                violations.add(trace.where() + ": " + trace.render(false)
                        + " sits on a class not named after a use case; move it to a "
                        + expected + "...Test class");
            } else if (!("UC" + name.group(1)).equals(expected)) {
                violations.add(trace.where() + ": " + trace.render(false)
                        + " sits on the test class of UC-" + name.group(1) + "; move it to a "
                        + expected + "...Test class");
            }
        }
        report("@UseCase annotations sit on the wrong test class", violations);
    }

    @Test
    void doneAndTestedUseCasesAreFullyCovered() {
        List<String> violations = new ArrayList<>();
        for (UseCaseSpec spec : specs.values()) {
            if (!spec.assertsCoverage()) {
                continue;
            }
            List<Trace> covering = traces.stream()
                    .filter(trace -> trace.id().equals(spec.id()) && !trace.disabled())
                    .toList();
            String prefix = spec.id() + " is " + spec.status() + " (" + relative(spec.file())
                    + "), but no enabled test covers ";
            String fix = " in a " + spec.id().replace("-", "") + "...Test class,"
                    + " or set the status back";
            if (covering.stream().noneMatch(
                    trace -> trace.annotation().scenario().equals(UseCaseSpec.MAIN_SCENARIO))) {
                violations.add(prefix + "the " + UseCaseSpec.MAIN_SCENARIO + "; add a test with"
                        + " @UseCase(id=\"" + spec.id() + "\")" + fix);
            }
            for (String flow : spec.flows()) {
                if (covering.stream().noneMatch(
                        trace -> trace.annotation().scenario().equals(flow))) {
                    violations.add(prefix + "alternative flow " + flow + "; add a test with"
                            + " @UseCase(id=\"" + spec.id() + "\", scenario=\"" + flow + "\")"
                            + fix);
                }
            }
            for (String rule : spec.ruleHeadings()) {
                String ruleId = rule.substring(0, rule.indexOf(':'));
                if (covering.stream().noneMatch(trace -> Arrays.asList(
                        trace.annotation().businessRules()).contains(ruleId))) {
                    violations.add(prefix + "business rule " + rule + "; add a test with"
                            + " @UseCase(id=\"" + spec.id() + "\", businessRules={\"" + ruleId
                            + "\"})" + fix);
                }
            }
        }
        report("Done/Tested use cases lack tests", violations);
    }

    private static List<Trace> readTraces(Path testClasses) {
        ClassLoader loader = UseCaseTraceabilityTest.class.getClassLoader();
        List<Trace> found = new ArrayList<>();
        for (CompiledClass compiled : CompiledClass.readAll(testClasses)) {
            if (!compiled.references(UseCase.class.getName())) {
                continue; // cheap pre-filter: only classes that mention @UseCase are loaded
            }
            Class<?> type;
            try {
                type = Class.forName(compiled.name(), false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Cannot load " + compiled.name(), e);
            }
            for (Method method : type.getDeclaredMethods()) {
                UseCase annotation = method.getAnnotation(UseCase.class);
                if (annotation != null) {
                    found.add(new Trace(type, method, annotation));
                }
            }
        }
        found.sort(Comparator.comparing(Trace::where));
        return found;
    }

    private List<String> testCaseProblems(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
                String text = Files.readString(file, StandardCharsets.UTF_8);
                Matcher name = TEST_CASE_FILE.matcher(file.getFileName().toString());
                Matcher id = Pattern.compile("(?m)^\\*\\*Test Case ID:\\*\\*\\s*(\\S+)").matcher(text);
                if (!name.matches()) {
                    problems.add(relative(file) + ": the file name is not TC-###-slug.md");
                } else if (!id.find()) {
                    problems.add(relative(file) + ": no \"**Test Case ID:** TC-###\" line");
                } else if (!id.group(1).equals(name.group(1))) {
                    problems.add(relative(file) + ": the id " + id.group(1)
                            + " does not match the file name");
                }
                if (!Pattern.compile("(?m)^\\*\\*Status:\\*\\*\\s*\\S").matcher(text).find()) {
                    problems.add(relative(file) + ": no \"**Status:** <value>\" line");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return problems;
    }

    private String relative(Path file) {
        return basedir.relativize(file.toAbsolutePath().normalize()).toString()
                .replace('\\', '/');
    }

    private static String listOrNone(List<String> items) {
        return items.isEmpty() ? "none" : String.join(", ", items);
    }

    private static void report(String rule, List<String> violations) {
        if (!violations.isEmpty()) {
            fail("Traceability rule broken: " + rule + " (" + violations.size() + " violation"
                    + (violations.size() == 1 ? "" : "s") + ")\n  "
                    + String.join("\n  ", violations));
        }
    }
}
