#!/usr/bin/env python3
"""Cold-start benchmark: `coh validate` on everything shipped vs `check-jsonschema` on the same files.

Each run is a fresh process (cold: interpreter start, imports, grammar, schemas), timed
wall-clock; the median and the best of N runs are reported. check-jsonschema takes one
schema per run, so validating the same files takes one run per schema; both the run for
the content files alone and the sum of all runs are shown.

    pip install '.[dev]'          # brings check-jsonschema
    python tools/bench_validate.py --runs 15
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SCHEMAS = ROOT / "schemas"


def _time(command: list[str], runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, cwd="/tmp", check=False)
        timings.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(
                f"{' '.join(command)} failed ({done.returncode}):\n"
                f"{done.stdout.decode()}{done.stderr.decode()}"
            )
    return timings


def _files_by_schema() -> dict[str, list[str]]:
    """The shipped files grouped by the schema each one declares in its manifest role."""
    groups: dict[str, list[str]] = {
        "pack.schema.json": [],
        "content.schema.json": [],
        "text.schema.json": [],
    }
    for manifest in sorted(CONTENT.glob("*/pack.yaml")):
        data = yaml.safe_load(manifest.read_text())
        groups["pack.schema.json"].append(str(manifest))
        groups["content.schema.json"].extend(str(manifest.parent / f) for f in data["files"])
        listed = {str(manifest.parent / f) for f in (data.get("text") or {}).values()}
        found = {str(p) for p in (manifest.parent / "text").glob("*.yaml")}  # text files need no listing
        groups["text.schema.json"].extend(sorted(listed | found))
    return {schema: files for schema, files in groups.items() if files}


def _row(label: str, timings: list[float]) -> str:
    return f"| {label} | {statistics.median(timings) * 1000:.0f} ms | {min(timings) * 1000:.0f} ms |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    coh = shutil.which("coh")
    checker = shutil.which("check-jsonschema")
    if coh is None or checker is None:
        sys.exit("needs `coh` and `check-jsonschema` on PATH: pip install '.[dev]'")
    groups = _files_by_schema()
    file_count = sum(len(files) for files in groups.values())
    _time([coh, "validate"], 2)  # warm the OS file cache and lark's grammar cache once
    coh_times = _time([coh, "validate"], args.runs)
    per_schema = {
        schema: _time([checker, "--schemafile", str(SCHEMAS / schema), *files], args.runs)
        for schema, files in groups.items()
    }
    total = [sum(runs) for runs in zip(*per_schema.values(), strict=True)]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {file_count} files, {args.runs} runs each"
    )
    print("| command | median | best |")
    print("|---|---|---|")
    print(_row("`coh validate` (schema + effects + references + text)", coh_times))
    print(_row("`check-jsonschema` content files only", per_schema["content.schema.json"]))
    print(_row(f"`check-jsonschema` all files ({len(per_schema)} runs, one per schema)", total))


if __name__ == "__main__":
    main()
