"""Static checks of docker/: the image's pinned dependency set, and that the Dockerfile, compose file and
build-context filter agree with the repository (there is no Docker engine here to build it)."""
import fnmatch
import os
import re
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, version

from .conftest import ROOT

DOCKER = ROOT / "docker"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins() -> dict[str, str]:
    pins = {}
    for line in (DOCKER / "requirements.lock").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, pinned = line.partition("==")
            pins[_normal(name)] = pinned
    return pins


def test_lock_pins_every_dependency_of_pyproject_at_the_same_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = lock_pins()
    for requirement in project["dependencies"]:
        name, _, pinned = requirement.partition("==")
        assert pins.get(_normal(name)) == pinned, f"docker/requirements.lock disagrees on {requirement}"


def test_lock_matches_the_tested_environment():
    # The image must run what the tests ran; update the lock when a dependency changes.
    for name, pinned in lock_pins().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            raise AssertionError(f"{name} is in the lock but not installed") from None
        assert installed == pinned, f"{name}: lock {pinned}, installed {installed}"


def dockerfile_copies() -> list[str]:
    sources = []
    for line in (DOCKER / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            parts = [p for p in line.split()[1:] if not p.startswith("--")]
            sources.extend(parts[:-1])
    return sources


def test_dockerfile_essentials():
    text = (DOCKER / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.12-slim\b", text, re.M)
    assert re.search(r"^USER relate$", text, re.M)
    assert 'VOLUME ["/data"]' in text and re.search(r"^EXPOSE 7688 7474$", text, re.M)
    assert 'HEALTHCHECK' in text and '["relate-healthcheck"]' in text
    assert 'ENTRYPOINT ["relate-entrypoint"]' in text
    for source in dockerfile_copies():
        assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"


def test_build_context_filter_keeps_what_the_dockerfile_copies():
    patterns = [p.strip() for p in (DOCKER / "Dockerfile.dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]
    assert ".venv" in patterns and ".git" in patterns
    for source in dockerfile_copies():
        assert not any(fnmatch.fnmatch(source, p) or source.startswith(p.rstrip("/") + "/") for p in patterns), source


def test_compose_runs_the_smoke_script_once_the_server_is_healthy():
    text = (DOCKER / "compose.yaml").read_text()
    assert "condition: service_healthy" in text
    assert '["relate://relate:7688", "-u", "neo4j", "-f", "/scripts/smoke.cypher"]' in text
    assert "./smoke.cypher:/scripts/smoke.cypher:ro" in text and (DOCKER / "smoke.cypher").exists()
    assert "dockerfile: docker/Dockerfile" in text


def test_scripts_are_executable_posix_shell():
    for name in ("entrypoint.sh", "healthcheck.sh"):
        path = DOCKER / name
        assert os.access(path, os.X_OK), f"{name} is not executable"
        assert path.read_text().startswith("#!/bin/sh\n")
        assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
