#!/usr/bin/env python3
"""Cold-start benchmark: `coh validate` on everything shipped vs `check-jsonschema` on the same files.

Each run is a fresh process (cold: interpreter start, imports, grammar, schemas), timed
wall-clock, the commands interleaved; the median and the best of N runs are reported. `coh
validate` is timed with its cache (coh_core/cache_dir.py: the grammar's tables, the effects'
trees, the YAML files read, the data already found valid by the schemas) and without it
(COH_NO_CACHE=1). Besides the wall-clock times, the median processor time (user + system) of
each command: on a busy machine it moves less than the wall clock. check-jsonschema takes one
schema per run, so validating the same files takes one run per schema: each content file against
the schema its first line names for editors (`# yaml-language-server: $schema=...`: its game's,
content/base/schema.json or content/zombicide/schema.json), the manifests and the text files
against theirs; both the runs for the content files alone and the sum of all runs are shown.

    pip install '.[dev]'          # brings check-jsonschema
    python tools/bench_validate.py --runs 15
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
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
MANIFEST_SCHEMA = SCHEMAS / "pack.schema.json"
TEXT_SCHEMA = SCHEMAS / "text.schema.json"
SCHEMA_NAMED = re.compile(r"\$schema=(\S+)")


CPU: dict[str, list[float]] = {}  # the processor time (user + system) of each run, by command


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time(command: list[str], runs: int, env: dict[str, str] | None = None) -> list[float]:
    timings = []
    for _ in range(runs):
        start, cpu = time.perf_counter(), _cpu()
        done = subprocess.run(command, capture_output=True, cwd="/tmp", env=env, check=False)
        timings.append(time.perf_counter() - start)
        CPU.setdefault(" ".join(command) + str(sorted((env or {}).items())), []).append(_cpu() - cpu)
        if done.returncode != 0:
            sys.exit(
                f"{' '.join(command)} failed ({done.returncode}):\n"
                f"{done.stdout.decode()}{done.stderr.decode()}"
            )
    return timings


def _schema_named(path: Path) -> Path:
    """The schema a content file names in its first line, as editors read it."""
    first_line = path.read_text(encoding="utf-8").split("\n", 1)[0]
    named = SCHEMA_NAMED.search(first_line)
    if named is None:
        sys.exit(f"{path}: its first line names no schema (# yaml-language-server: $schema=...)")
    return (path.parent / named.group(1)).resolve()


def _files_by_schema() -> dict[Path, list[str]]:
    """The shipped files grouped by the schema each one is checked against."""
    groups: dict[Path, list[str]] = {MANIFEST_SCHEMA: [], TEXT_SCHEMA: []}
    for manifest in sorted(CONTENT.glob("*/pack.yaml")):
        data = yaml.safe_load(manifest.read_text())
        groups[MANIFEST_SCHEMA].append(str(manifest))
        for name in data["files"]:
            path = manifest.parent / name
            groups.setdefault(_schema_named(path), []).append(str(path))
        listed = {str(manifest.parent / f) for f in (data.get("text") or {}).values()}
        found = {str(p) for p in (manifest.parent / "text").glob("*.yaml")}  # text files need no listing
        groups[TEXT_SCHEMA].extend(sorted(listed | found))
    return {schema: files for schema, files in groups.items() if files}


def _row(label: str, timings: list[float], cpu: list[float]) -> str:
    median, best, processor = (statistics.median(timings), min(timings), statistics.median(cpu))
    return f"| {label} | {median * 1000:.0f} ms | {best * 1000:.0f} ms | {processor * 1000:.0f} ms |"


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
    # As a user runs it: the compiled modules (.pyc) written once and read afterwards.
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    uncached = base_env | {"COH_NO_CACHE": "1"}
    checks = {schema: [checker, "--schemafile", str(schema), *files] for schema, files in groups.items()}
    content_schemas = [schema for schema in checks if schema not in (MANIFEST_SCHEMA, TEXT_SCHEMA)]
    _time([coh, "validate"], 2, base_env)  # warm the OS file cache and fill coh's cache once
    _time([coh, "validate"], 1, uncached)
    CPU.clear()
    coh_times: list[float] = []
    uncached_times: list[float] = []
    per_schema: dict[str, list[float]] = {schema: [] for schema in checks}
    for _ in range(args.runs):  # interleaved: a change in the machine's load touches all alike
        coh_times += _time([coh, "validate"], 1, base_env)
        uncached_times += _time([coh, "validate"], 1, uncached)
        for schema, command in checks.items():
            per_schema[schema] += _time(command, 1)
    total = [sum(runs) for runs in zip(*per_schema.values(), strict=True)]
    coh_cpu, uncached_cpu, *schema_cpu = CPU.values()
    total_cpu = [sum(runs) for runs in zip(*schema_cpu, strict=True)]
    content_runs = [list(checks).index(schema) for schema in content_schemas]
    content_cpu = [sum(runs) for runs in zip(*(schema_cpu[i] for i in content_runs), strict=True)]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}, "
        f"{file_count} files, {args.runs} runs each"
    )
    print("| command | median | best | processor time (median) |")
    print("|---|---|---|---|")
    print(_row("`coh validate` (schema + effects + references + text), with its cache", coh_times, coh_cpu))
    print(_row("`COH_NO_CACHE=1 coh validate` (no cache)", uncached_times, uncached_cpu))
    content = [sum(runs) for runs in zip(*(per_schema[s] for s in content_schemas), strict=True)]
    label = f"`check-jsonschema` content files only ({len(content_schemas)} runs, one per game's schema)"
    print(_row(label, content, content_cpu))
    print(_row(f"`check-jsonschema` all files ({len(per_schema)} runs, one per schema)", total, total_cpu))
    ratio = statistics.median(coh_times) / statistics.median(content)
    cpu_ratio = statistics.median(coh_cpu) / statistics.median(content_cpu)
    print(
        f"`coh validate` (cached) / check-jsonschema (content): {ratio:.2f} (medians),"
        f" {cpu_ratio:.2f} (processor time)"
    )


if __name__ == "__main__":
    main()
