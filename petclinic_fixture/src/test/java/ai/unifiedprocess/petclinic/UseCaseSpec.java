package ai.unifiedprocess.petclinic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A use-case spec, docs/use_cases/UC-###-slug.md, reduced to what the traceability sensors
 * check: id, status, numbered main-scenario steps, alternative flows, business rules and where
 * the text mentions a rule (rule id -> first line that does, outside the rule headings).
 */
record UseCaseSpec(Path file, String id, String status, int mainSteps, List<String> flows,
        Map<String, String> rules, Map<String, Integer> ruleMentions, List<String> problems) {

    static final String MAIN_SCENARIO = "Main Success Scenario";

    private static final Pattern FILE_NAME = Pattern.compile("(UC-\\d{3})-[a-z0-9-]+\\.md");
    private static final Pattern ID_LINE = Pattern.compile("\\*\\*Use Case ID:\\*\\*\\s*(\\S*)\\s*");
    private static final Pattern STATUS_LINE = Pattern.compile("\\*\\*Status:\\*\\*\\s*(.*?)\\s*");
    private static final Pattern FLOW = Pattern.compile("###\\s+(A\\d+:\\s*\\S.*?)\\s*");
    private static final Pattern RULE = Pattern.compile("###\\s+(BR-\\d{3}):\\s*(\\S.*?)\\s*");
    private static final Pattern STEP = Pattern.compile("\\d+\\.\\s+\\S.*");
    private static final Pattern RULE_MENTION = Pattern.compile("\\bBR-\\d+\\b");

    /** Every spec in the directory, sorted by file name. */
    static List<UseCaseSpec> readAll(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().matches("UC-.*\\.md"))
                    .sorted()
                    .map(UseCaseSpec::read)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static UseCaseSpec read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        String id = null;
        String status = null;
        String section = "";
        boolean hasMainSection = false;
        int mainSteps = 0;
        List<String> flows = new ArrayList<>();
        Map<String, String> rules = new LinkedHashMap<>();
        Map<String, Integer> ruleMentions = new LinkedHashMap<>();
        int number = 0;
        for (String raw : lines) {
            String line = raw.strip();
            number++;
            Matcher matcher;
            if (!line.startsWith("### BR-")) {
                Matcher mention = RULE_MENTION.matcher(line);
                while (mention.find()) {
                    ruleMentions.putIfAbsent(mention.group(), number);
                }
            }
            if (id == null && (matcher = ID_LINE.matcher(line)).matches()) {
                id = matcher.group(1);
            } else if (status == null && (matcher = STATUS_LINE.matcher(line)).matches()) {
                status = matcher.group(1);
            } else if (line.startsWith("## ")) {
                section = line.substring(3).strip();
                hasMainSection |= section.equals(MAIN_SCENARIO);
            } else if (section.equals(MAIN_SCENARIO) && STEP.matcher(line).matches()) {
                mainSteps++;
            } else if (section.equals("Alternative Flows")
                    && (matcher = FLOW.matcher(line)).matches()) {
                flows.add(matcher.group(1).replaceFirst(":\\s*", ": "));
            } else if (section.equals("Business Rules")
                    && (matcher = RULE.matcher(line)).matches()) {
                if (rules.put(matcher.group(1), matcher.group(2)) != null) {
                    problems.add("business rule " + matcher.group(1) + " is defined twice");
                }
            }
        }
        Matcher name = FILE_NAME.matcher(file.getFileName().toString());
        if (!name.matches()) {
            problems.add("the file name is not UC-###-slug.md");
        }
        if (lines.isEmpty() || !lines.get(0).startsWith("# Use Case: ")) {
            problems.add("the first line is not \"# Use Case: <Name>\"");
        }
        if (id == null) {
            problems.add("no \"**Use Case ID:** UC-###\" line");
            id = name.matches() ? name.group(1) : file.getFileName().toString();
        } else if (name.matches() && !id.equals(name.group(1))) {
            problems.add("the id " + id + " does not match the file name");
        }
        if (status == null || status.isEmpty()) {
            problems.add("no \"**Status:** <value>\" line");
            status = "";
        }
        if (!hasMainSection) {
            problems.add("no \"## " + MAIN_SCENARIO + "\" section");
        } else if (mainSteps == 0) {
            problems.add("the " + MAIN_SCENARIO + " has no numbered steps");
        }
        return new UseCaseSpec(file, id, status, mainSteps, List.copyOf(flows),
                Map.copyOf(rules), Map.copyOf(ruleMentions), List.copyOf(problems));
    }

    /** Done and Tested are assertions: from then on the spec must be fully covered. */
    boolean assertsCoverage() {
        return status.equals("Done") || status.equals("Tested");
    }

    /** True for "Main Success Scenario" and for an alternative flow the spec defines. */
    boolean hasScenario(String scenario) {
        return scenario.equals(MAIN_SCENARIO) || flows.contains(scenario);
    }

    /** "BR-001: Required Fields", sorted by id. */
    List<String> ruleHeadings() {
        return rules.entrySet().stream().map(rule -> rule.getKey() + ": " + rule.getValue())
                .sorted().toList();
    }
}
