"""Which Maven the workspace's ``./mvnw`` runs, recorded when ``lab init`` made the workspace.

``./mvnw`` runs the first ``mvn`` on the PATH (the docker backend: the first ``docker``). A
program of that name put earlier on the PATH (``~/.local/bin/mvn``, walk-i) runs instead of
Maven whenever a check or a session runs the sensors, and can write any report it likes. So
``lab init`` records the program it found: where the PATH led (the path, the file it resolves
to, that file's sha256, the Maven home around it), and a check that relies on a Maven run
refuses when ``./mvnw`` would now run another one. A Maven installed on purpose (Homebrew's on
a Mac, an SDKMAN one) is whatever ``lab init`` found: recorded, not listed anywhere.

Surefire's reports cannot carry the proof instead: on these machines a run writes an empty
``<properties/>`` (no maven.home, no java.home, no command line), so a report does not say
which Maven wrote it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

META_KEY = "maven_found"
# The dev check's own shared-run shims (harness.maven.share) live in such a folder.
_SHARE_FOLDER = "maven-share"


@dataclass(frozen=True)
class MavenFound:
    """The program ``./mvnw`` hands the run to: ``program`` ("mvn" or "docker"), where the
    PATH found it, the file that is (symlinks followed), its sha256 and its home (the folder
    above its bin/); for mvn also the ``java`` it runs (``$JAVA_HOME/bin/java``, else the
    first on the PATH; walk-o J: a java wrapper earlier on the PATH that adds a class path),
    as the file and its sha256 ("" for docker, and in records made before it was kept)."""

    program: str
    path: str
    resolved: str
    sha256: str
    home: str
    java: str = ""
    java_sha256: str = ""

    @classmethod
    def from_meta(cls, raw: object) -> MavenFound | None:
        if not isinstance(raw, dict):
            return None
        fields = ("program", "path", "resolved", "sha256", "home")
        try:
            found = {k: str(raw[k]) for k in fields}
        except KeyError:
            return None
        return cls(
            **found, java=str(raw.get("java", "")), java_sha256=str(raw.get("java_sha256", ""))
        )

    def same_program(self, other: MavenFound) -> bool:
        return (self.program, self.resolved, self.sha256) == (
            other.program,
            other.resolved,
            other.sha256,
        )

    def same_java(self, other: MavenFound) -> bool:
        """The same java, or none recorded to compare with."""
        if not self.java or not other.java:
            return True
        return (self.java, self.java_sha256) == (other.java, other.java_sha256)


def _backend(root: Path, env: Mapping[str, str]) -> str:
    """docker or local, as ./mvnw decides it: HOOKLAB_BACKEND first, then .mvn/hooklab-backend."""
    chosen = env.get("HOOKLAB_BACKEND", "")
    if chosen:
        return chosen
    marker = root / ".mvn" / "hooklab-backend"
    try:
        return "docker" if "docker" in marker.read_text() else "local"
    except OSError:
        return "local"


def path_without_shims(path: str) -> str:
    """``path`` without Hook Lab's own Maven shims (the dev check's share, the tests' memo)."""
    return os.pathsep.join(
        entry
        for entry in path.split(os.pathsep)
        if entry and Path(entry).parent.name != _SHARE_FOLDER
    )


def maven_found(root: Path, env: Mapping[str, str] | None = None) -> MavenFound | None:
    """What ``./mvnw`` in ``root`` would run with ``env``'s PATH (default: this process's);
    None when there is no such program."""
    env = os.environ if env is None else env
    program = "docker" if _backend(root, env) == "docker" else "mvn"
    path = path_without_shims(env.get("PATH", ""))
    found = shutil.which(program, path=path)
    if found is None:
        return None
    resolved = Path(found).resolve()
    try:
        digest = _sha256(resolved)
    except OSError:
        return None
    home = resolved.parent.parent if resolved.parent.name == "bin" else resolved.parent
    java, java_digest = _java(env, path) if program == "mvn" else ("", "")
    return MavenFound(program, found, str(resolved), digest, str(home), java, java_digest)


def _java(env: Mapping[str, str], path: str) -> tuple[str, str]:
    """The java Maven's own script runs (``$JAVA_HOME/bin/java``, else the PATH's), as the
    file it is and its sha256; ("", "") when there is none."""
    java_home = env.get("JAVA_HOME", "")
    found = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java", path=path)
    if not found:
        return "", ""
    resolved = Path(found).resolve()
    try:
        return str(resolved), _sha256(resolved)
    except OSError:
        return "", ""


# Where a machine's own programs live: its packages (/usr, /opt), Homebrew's and Nix's. A
# recorded mvn or java elsewhere (~/bin, /tmp) was put there by someone.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/nix/store")


def _outside_system(file: str) -> bool:
    return not any(file == f or file.startswith(f + "/") for f in SYSTEM_FOLDERS)


def _a_script(file: str) -> bool:
    """A text file run through an interpreter (#!), not a compiled program."""
    try:
        with open(file, "rb") as program:
            return program.read(2) == b"#!"
    except OSError:
        return False


def not_the_machines(found: MavenFound) -> list[str]:
    """Why the recorded mvn or java may not be the machine's own (none: it looks it): a
    file outside the system's folders, or a java that is a script (walk-o J's wrapper; a JDK's
    java is a compiled program; Debian's mvn is a script of its own, so only java is asked).
    A trainer reads these beside the participant's progress: ``lab init`` trusts whatever it
    records."""
    why = []
    if found.program == "mvn" and _outside_system(found.resolved):
        why.append(f"mvn {found.resolved} is outside the system's folders")
    if found.java and _outside_system(found.java):
        why.append(f"java {found.java} is outside the system's folders")
    if found.java and _a_script(found.java):
        why.append(f"java {found.java} is a script, not a Java program")
    return why


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def what_changed(was: MavenFound, now: MavenFound) -> list[str]:
    """What differs between the Maven ``lab init`` recorded and the one it finds now, one
    clause each: a program or a java at the same path with new content is named with its
    sha256 before and after (its path alone read the same on both sides)."""
    said = []
    if was.path != now.path or was.resolved != now.resolved:
        said.append(f"./mvnw now runs {now.path}, not {was.path}")
    elif was.sha256 != now.sha256:
        said.append(
            f"{now.path} has new content (sha256 {was.sha256[:12]} before, {now.sha256[:12]} now)"
        )
    if was.java and now.java and was.java != now.java:
        said.append(f"Maven now runs the java {now.java}, not {was.java}")
    elif was.java and now.java and was.java_sha256 != now.java_sha256:
        said.append(
            f"the java {now.java} has new content (sha256 {was.java_sha256[:12]} before, "
            f"{now.java_sha256[:12]} now)"
        )
    return said


def recorded(meta: Mapping[str, Any]) -> MavenFound | None:
    """The program recorded in a workspace's meta (None: none recorded)."""
    return MavenFound.from_meta(meta.get(META_KEY))


def as_meta(found: MavenFound | None) -> dict[str, Any] | None:
    return asdict(found) if found is not None else None
