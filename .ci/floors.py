"""Print a pip constraints file pinning every declared dependency to its declared floor.

`.ci/run`'s lowest-versions job installs trace-audit with these constraints, so a floor in
pyproject.toml (`name>=X`) is one that was tested, not a guess. Extras named on the command line
are pinned too (e.g. `python .ci/floors.py test`); a requirement with no floor is left free."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8"))["project"]
wanted = list(project["dependencies"])
for extra in sys.argv[1:]:
    wanted += project["optional-dependencies"][extra]
seen: set[str] = set()
for req in wanted:
    m = re.match(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*([^;#]*)", req)
    if not m or m.group(1).lower() == "trace-audit":
        continue
    name, spec = m.group(1).lower(), m.group(3)
    floor = re.search(r">=\s*([0-9][^,\s]*)", spec)
    if floor and name not in seen:
        seen.add(name)
        print(f"{name}=={floor.group(1)}")
