"""Free passes found by the walks walk-k (Labs 01–07) and walk-l (Labs 08–13), each tried as
the walker did it."""

from __future__ import annotations

import subprocess

import pytest

from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import at_step

MVNW = ["./mvnw", "-q", "test", "-Dgroups=sensor"]

# walk-k Q: a JUnit extension that swallows every failure of every test.
QUIET = """\
package zz;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
public class Quiet implements TestExecutionExceptionHandler {
    @Override public void handleTestExecutionException(ExtensionContext c, Throwable t) { }
}
"""


@pytest.mark.slow
def test_lab02_step2_an_extension_registered_by_hand_in_target_does_not_make_the_sensors_green(
    workspace: Workspace,
) -> None:
    """walk-k Q: the rename done, the annotations left dangling; a Quiet extension compiled
    from src/test/java/zz, registered in target/test-classes (the build copies no resources,
    so the files go there by hand), and a real run is green."""
    runner = at_step(workspace, "2", "fix-annotations")
    root = workspace.root
    (root / "src" / "test" / "java" / "zz").mkdir(parents=True)
    (root / "src" / "test" / "java" / "zz" / "Quiet.java").write_text(QUIET)
    subprocess.run(MVNW, cwd=root, capture_output=True, check=False)  # red: compiles Quiet
    classes = root / "target" / "test-classes"
    services = classes / "META-INF" / "services"
    services.mkdir(parents=True)
    (services / "org.junit.jupiter.api.extension.Extension").write_text("zz.Quiet\n")
    (classes / "junit-platform.properties").write_text(
        "junit.jupiter.extensions.autodetection.enabled=true\n"
    )
    green = subprocess.run(MVNW, cwd=root, capture_output=True, text=True, check=False)
    assert green.returncode == 0, green.stdout  # the walker's state: every sensor green

    run = runner.check(every=True)

    sensors = next(r for r in run.results if r.name.startswith("sensors"))
    assert sensors.status is Status.FAIL, sensors
    assert sensors.message.startswith("target/ holds files that no compile of your sources")
    assert (sensors.found or "").splitlines() == [
        "target/test-classes/META-INF/services/org.junit.jupiter.api.extension.Extension",
        "target/test-classes/junit-platform.properties",
        "target/test-classes/zz/Quiet.class",
    ]
    assert sensors.details["fix"] == (
        "rm -r target/test-classes/META-INF target/test-classes/junit-platform.properties "
        "target/test-classes/zz; then ./mvnw -q test -Dgroups=sensor"
    )
    assert run.status is Status.FAIL
