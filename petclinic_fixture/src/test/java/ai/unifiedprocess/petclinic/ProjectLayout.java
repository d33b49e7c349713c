package ai.unifiedprocess.petclinic;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the sensors find the project. Surefire runs in-process here (forkCount=0), so the
 * working directory is whatever Maven was started from; the compiled test classes know better.
 */
final class ProjectLayout {

    private static Path basedir;

    private ProjectLayout() {
    }

    /** target/test-classes (or wherever this class was loaded from). */
    static Path testClasses() {
        URL location = ProjectLayout.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            return Paths.get(location.toURI());
        } catch (URISyntaxException e) {
            // Maven's in-process class loader makes its URLs without escaping: in a directory
            // with a space ("My Projects") the URL is no valid URI, but its path is the path.
            return Paths.get(location.getPath());
        }
    }

    /** target/classes: the production code, a sibling of the test classes. */
    static Path mainClasses() {
        return testClasses().resolveSibling("classes");
    }

    /** The project directory: the first candidate that holds a pom.xml. */
    static synchronized Path basedir() {
        if (basedir == null) {
            basedir = findBasedir();
        }
        return basedir;
    }

    /** A file as a message names it: relative to the project, with forward slashes. */
    static String relative(Path file) {
        return basedir().relativize(file.toAbsolutePath().normalize()).toString()
                .replace('\\', '/');
    }

    private static Path findBasedir() {
        List<Path> candidates = new ArrayList<>();
        Path target = testClasses().getParent();
        if (target != null && target.getParent() != null) {
            candidates.add(target.getParent());
        }
        String property = System.getProperty("basedir");
        if (property != null) {
            candidates.add(Paths.get(property));
        }
        candidates.add(Paths.get(System.getProperty("user.dir")));
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("pom.xml"))) {
                return candidate.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("No pom.xml in any of " + candidates);
    }
}
