package ai.unifiedprocess.petclinic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A test-case spec, docs/test_cases/TC-###-slug.md, reduced to what TestCaseTraceabilityTest
 * checks: id, status, the use case and scenario it exercises ("**Use Case:** UC-003 Register New
 * Owner (Main Success Scenario)") and the tests its "**Automated By:**" line names.
 */
record TestCaseSpec(Path file, String id, String status, String useCase, String scenario,
        List<String> automatedBy, List<String> problems) {

    private static final Pattern FILE_NAME = Pattern.compile("(TC-\\d{3})-[a-z0-9-]+\\.md");
    private static final Pattern ID_LINE =
            Pattern.compile("\\*\\*Test Case ID:\\*\\*\\s*(\\S*)\\s*");
    private static final Pattern STATUS_LINE = Pattern.compile("\\*\\*Status:\\*\\*\\s*(.*?)\\s*");
    private static final Pattern USE_CASE_LINE =
            Pattern.compile("\\*\\*Use Case:\\*\\*\\s*(UC-\\d+)\\b(?:.*\\((.+)\\))?\\s*");
    private static final Pattern AUTOMATED_BY_LINE =
            Pattern.compile("\\*\\*Automated By:\\*\\*(.*)");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    /** Every spec in the directory, sorted by file name. */
    static List<TestCaseSpec> readAll(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".md"))
                    .sorted()
                    .map(TestCaseSpec::read)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TestCaseSpec read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        String id = null;
        String status = null;
        String useCase = null;
        String scenario = UseCaseSpec.MAIN_SCENARIO;
        List<String> automatedBy = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.strip();
            Matcher matcher;
            if (id == null && (matcher = ID_LINE.matcher(line)).matches()) {
                id = matcher.group(1);
            } else if (status == null && (matcher = STATUS_LINE.matcher(line)).matches()) {
                status = matcher.group(1);
            } else if (useCase == null && (matcher = USE_CASE_LINE.matcher(line)).matches()) {
                useCase = matcher.group(1);
                if (matcher.group(2) != null) {
                    scenario = matcher.group(2).strip();
                }
            } else if ((matcher = AUTOMATED_BY_LINE.matcher(line)).matches()) {
                Matcher test = BACKTICKED.matcher(matcher.group(1));
                while (test.find()) {
                    automatedBy.add(test.group(1).strip());
                }
            }
        }
        Matcher name = FILE_NAME.matcher(file.getFileName().toString());
        if (!name.matches()) {
            problems.add("the file name is not TC-###-slug.md");
        }
        if (lines.isEmpty() || !lines.get(0).startsWith("# Test Case: ")) {
            problems.add("the first line is not \"# Test Case: <Name>\"");
        }
        if (id == null) {
            problems.add("no \"**Test Case ID:** TC-###\" line");
            id = name.matches() ? name.group(1) : file.getFileName().toString();
        } else if (name.matches() && !id.equals(name.group(1))) {
            problems.add("the id " + id + " does not match the file name");
        }
        if (status == null || status.isEmpty()) {
            problems.add("no \"**Status:** <value>\" line");
            status = "";
        }
        if (useCase == null) {
            problems.add("no \"**Use Case:** UC-### <Name> (<scenario>)\" line");
            useCase = "";
        }
        return new TestCaseSpec(file, id, status, useCase, scenario, List.copyOf(automatedBy),
                List.copyOf(problems));
    }

    /** Automated is an assertion: from then on the spec must have its tests. */
    boolean assertsAutomation() {
        return status.equals("Automated");
    }
}
