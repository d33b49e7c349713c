"""The lab's Maven image: which one to use, whether it is present, whether it is current.

The image is built on this machine by ``docker/build-image.sh`` (Debian packages only; no
registry pull). It carries a label with a hash of the files in ``docker/``; when that hash no
longer matches the checkout, the image is stale and the build script rebuilds it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_IMAGE = "hooklab/maven-jdk17:latest"
IMAGE_ENV = "HOOKLAB_DOCKER_IMAGE"
INPUTS_LABEL = "org.hooklab.inputs"
DOCKER_DIR = Path(__file__).resolve().parents[2] / "docker"
BUILD_COMMAND = "scripts/docker-up.sh"


def configured_image(explicit: str | None = None) -> str:
    """The constructor argument, else $HOOKLAB_DOCKER_IMAGE, else the locally built image."""
    return explicit or os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE


def inputs_hash(docker_dir: Path = DOCKER_DIR) -> str | None:
    """Hash of the build inputs, as build-image.sh computes it; None outside a checkout.

    The regular files of ``docker/`` sorted by name (byte order, like ``LC_ALL=C sort``),
    their contents concatenated, SHA-256, first 16 hex digits.
    """
    if not docker_dir.is_dir():
        return None
    digest = hashlib.sha256()
    for path in sorted((p for p in docker_dir.iterdir() if p.is_file()), key=lambda p: p.name):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_fix(image: str) -> str:
    if image == DEFAULT_IMAGE:
        return f"build it: {BUILD_COMMAND} (builds {DEFAULT_IMAGE} from Debian packages)"
    return f"docker pull {image}, or unset {IMAGE_ENV} to use {DEFAULT_IMAGE} ({BUILD_COMMAND})"


@dataclass(frozen=True)
class ImageInfo:
    name: str
    id: str
    size_mb: int
    inputs: str | None  # the label; None on an image not built by build-image.sh
    expected: str | None  # the checkout's hash; None when there is no docker/ to compare

    @property
    def stale(self) -> bool:
        """Built by us from other inputs than the checkout's (a foreign image never is)."""
        return (
            self.name == DEFAULT_IMAGE
            and self.expected is not None
            and (self.inputs != self.expected)
        )


def image_info(attrs: dict[str, Any], name: str) -> ImageInfo:
    """An ``ImageInfo`` from the Docker API's image inspect document."""
    labels = (attrs.get("Config") or {}).get("Labels") or {}
    return ImageInfo(
        name=name,
        id=str(attrs.get("Id", "")).removeprefix("sha256:")[:12],
        size_mb=int(attrs.get("Size", 0)) // 1_000_000,
        inputs=labels.get(INPUTS_LABEL),
        expected=inputs_hash(),
    )
