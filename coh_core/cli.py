"""The `coh` command line. Commands only format output; rules live in content and the engine.

Exit codes: 0 ok, 1 content problems found, 2 usage or I/O error. `--format json`
writes one JSON document on stdout and anything meant for humans on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from coh_core.errors import CohError, ContentError, Problem, UsageError
from coh_core.packs import ValidationReport, load_pack_checked, validate_paths
from coh_core.packs.listing import LIST_KINDS, list_rows, show_entity
from coh_core.packs.model import Pack

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def _colour_enabled(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and bool(getattr(stream, "isatty", lambda: False)())


def _style(text: str, stream: Any = None, **styles: Any) -> str:
    return click.style(text, **styles) if _colour_enabled(stream or sys.stdout) else text


def _fail_usage(error: CohError) -> NoReturn:
    location = f"{error.location}: " if error.location else ""
    click.echo(f"{location}{error.code} {error.message}", err=True)
    sys.exit(EXIT_USAGE)


def _print_problems(problems: Sequence[Problem], err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    for problem in problems:
        head = f"{problem.location}: {_style(problem.code, stream, fg='red', bold=True)} {problem.message}"
        click.echo(head, err=err)
        if problem.context:
            click.echo(problem.context, err=err)


def _load_pack(pack: Path | None) -> Pack:
    """The pack for list/show, or exit 1 with its problems."""
    try:
        return load_pack_checked(pack)
    except ContentError as exc:
        _print_problems(exc.problems, err=True)
        click.echo(f"{len(exc.problems)} problem(s): fix the pack first (coh validate)", err=True)
        sys.exit(EXIT_PROBLEMS)


_format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Human-readable text, or one JSON document on stdout.",
)
_pack_option = click.option(
    "--pack",
    type=click.Path(path_type=Path),
    default=None,
    help="A pack directory to read instead of the built-in base pack.",
)


class _Group(click.Group):
    """Turns any CohError escaping a command into a located message and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CohError as error:
            _fail_usage(error)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="coh", prog_name="coh")
def main() -> None:
    """coh: a data-driven rules engine for City of Horror."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_format_option
def validate(paths: tuple[Path, ...], fmt: str) -> None:
    """Check content packs: schema, effects, references, counts, text.

    PATHS are pack directories, manifests, files inside a pack, or folders of packs;
    the built-in content when none is given.
    """
    try:
        report = validate_paths(paths)
    except UsageError as error:
        if fmt == "json":
            click.echo(json.dumps({"ok": False, "problems": [error.as_problem().to_json()]}, indent=2))
        _fail_usage(error)
    if fmt == "json":
        click.echo(json.dumps(_report_json(report), indent=2))
    else:
        _print_problems(report.problems)
        click.echo(_summary(report))
    sys.exit(EXIT_OK if report.ok else EXIT_PROBLEMS)


def _summary(report: ValidationReport) -> str:
    counts = (
        f"{len(report.packs)} pack(s), {report.entities} entities, {report.effects} effects, "
        f"{report.files} files"
    )
    if report.ok:
        return f"{_style('ok', fg='green', bold=True)}: {counts}"
    return f"{_style(f'{len(report.problems)} problem(s)', fg='red', bold=True)} in {counts}"


def _report_json(report: ValidationReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "packs": [p.id for p in report.packs],
        "entities": report.entities,
        "effects": report.effects,
        "files": report.files,
        "problems": [p.to_json() for p in report.problems],
    }


@main.command(name="list")
@click.argument("kind", type=click.Choice(LIST_KINDS))
@_format_option
@_pack_option
def list_command(kind: str, fmt: str, pack: Path | None) -> None:
    """List the characters, actions, locations or invasions of a pack."""
    loaded = _load_pack(pack)
    head, rows, records, footer = list_rows(loaded, kind)
    if fmt == "json":
        click.echo(json.dumps(records, indent=2, ensure_ascii=False))
        return
    click.echo(_table(head, rows))
    if footer:
        click.echo(footer)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([_style(line(head), bold=True), rule, *(line(r) for r in rows)])


@main.command()
@click.argument("entity_id")
@_format_option
@_pack_option
def show(entity_id: str, fmt: str, pack: Path | None) -> None:
    """Show one character, action card, location, invasion card or colour."""
    loaded = _load_pack(pack)
    found = show_entity(loaded, entity_id)
    if found is None:
        from coh_core.effects.checker import suggest

        known = [i for by_id in loaded.entities.values() for i in by_id]
        raise UsageError(
            f"no entity `{entity_id}` in pack `{loaded.id}`" + suggest(entity_id, known),
            code="REF-UNDEF",
        )
    text, record = found
    click.echo(json.dumps(record, indent=2, ensure_ascii=False) if fmt == "json" else text)


@main.group()
def docs() -> None:
    """Generated documentation."""


@docs.command(name="effects")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    default=None,
    help="Write to this file instead of stdout.",
)
def docs_effects(output: Path | None) -> None:
    """The effect-language reference, generated from the registry."""
    from coh_core.effects.docs import generate_reference

    text = generate_reference()
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}", code="IO-WRITE") from None
