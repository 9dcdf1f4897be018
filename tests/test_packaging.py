"""What a newcomer gets: the license pyproject names, and every file the README links, in the sdist."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_file_is_the_one_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_every_file_the_readme_links_exists_and_ships_in_the_sdist():
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["sdist"][
        "include"]
    links = set(re.findall(r"\]\(((?!https?:|#)[^)\s]+)\)", (ROOT / "README.md").read_text()))
    links |= set(re.findall(r"`((?:docs|screenshots|benchmarks|plugins)/[\w./-]+\.\w+)`",
                            (ROOT / "README.md").read_text()))
    assert links, "the README links no files?"
    for link in sorted(links):
        assert (ROOT / link).exists(), link
        assert any(link == entry or link.startswith(entry + "/") for entry in include), f"{link} is not in the sdist"
