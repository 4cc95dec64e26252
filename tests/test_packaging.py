"""What `pip install .` (not -e) puts in site-packages: every sub-package and every data file the
product reads. The list in pyproject.toml is written by hand (the checkout root is the package),
so a new folder left out of it worked from a checkout and failed installed (`rules run` raised
ModuleNotFoundError: trace_audit.queries.reading on a plain install)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("cli", "ingest", "queries", "dashboard", "sample_data")
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]


def _package_dir(name: str) -> Path:
    return ROOT.joinpath(*name.split(".")[1:])


def test_every_sub_package_is_listed():
    folders = {"trace_audit." + ".".join(p.parent.relative_to(ROOT).parts)
               for d in PRODUCT for p in (ROOT / d).rglob("__init__.py")}
    missing = sorted(folders - set(CONFIG["packages"]))
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_data_file_is_packaged():
    listed = set(CONFIG["packages"])
    covered: set[Path] = set()
    for package, globs in CONFIG["package-data"].items():
        for pattern in globs:
            covered |= {p for p in _package_dir(package).glob(pattern) if p.is_file()}
    data = {p for d in PRODUCT for p in (ROOT / d).rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    # a data file is installed when a listed package's package-data matches it
    missing = sorted(str(p.relative_to(ROOT)) for p in data - covered)
    assert not missing, f"add to [tool.setuptools.package-data] in pyproject.toml: {missing}"
    assert all(any(_package_dir(pk) == p.parent or _package_dir(pk) in p.parents for pk in listed) for p in covered)
