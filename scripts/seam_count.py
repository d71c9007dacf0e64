#!/usr/bin/env python3
"""How big the aiokafka seam is (issue 42): the aiokafka names staticconsumer touches outside
aiokafka's public API, internal names (of aiokafka's other modules) and private attributes,
counted once each, per file, and how many touches lie outside the seam (which must be none).

    .venv/bin/python scripts/seam_count.py            # this tree
    .venv/bin/python scripts/seam_count.py --root DIR # another checkout (e.g. before a change)

The rule and the reader are ``tests/contract/_aiokafka_seam.py`` (the contract test's); the
installed aiokafka says what is public and what is private. Exits 1 when a touch lies outside
the seam."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aiokafka  # noqa: E402

from tests.contract._aiokafka_seam import outside_seam, read_tree  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout to count")
    root = parser.parse_args().root.resolve()
    found = read_tree(root)
    internal = sorted({t.name for t in found if t.kind == "internal"})
    private = sorted({t.name for t in found if t.kind == "private"})
    print(f"aiokafka {aiokafka.__version__}: {len(internal) + len(private)} aiokafka names "
          f"outside its public API are touched in {root}")  # fmt: skip
    print(f"  internal names (aiokafka's other modules): {len(internal)}")
    print(f"  private attributes:                        {len(private)}")
    per_file: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for touch in found:
        per_file[touch.path][touch.kind].add(touch.name)
    for path, kinds in sorted(per_file.items()):
        print(f"    {path}: {len(kinds['internal'])} internal, {len(kinds['private'])} private")
    outside = outside_seam(found)
    print(f"  touches outside the seam: {len(outside)}")
    for touch in outside:
        print(f"    {touch}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
