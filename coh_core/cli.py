"""The `coh` command line. Commands only format output; rules live in content and the engine.

Exit codes: 0 ok, 1 content problems found, 2 usage or I/O error. `--format json`
writes one JSON document on stdout and anything meant for humans on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

from coh_core.errors import CohError, ContentError, Location, Problem, UsageError
from coh_core.limits import MAX_SEED, MIN_SEED

# Commands import what they need when they run: `coh --help` (and every command's) must not
# pay for the schema, grammar, YAML and translation libraries (tests/test_startup.py).
# Nor for pathlib, json or shutil: a tenth of a bare `python -c pass` each, against a budget of 5x.
if TYPE_CHECKING:
    from pathlib import Path

    from coh_core.narrative import Narrator
    from coh_core.packs import ValidationReport
    from coh_core.packs.model import Pack

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report a SIGINT (128 + 2)
NEW_SEEDS = 999_999  # a game given no seed takes one from 1 to this


class _PathType(click.Path):
    """`click.Path(path_type=Path)`, importing pathlib only when it converts a value."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from pathlib import Path

        return Path(os.fsdecode(super().convert(value, param, ctx)))


def _terminal_columns() -> int:
    """`shutil.get_terminal_size().columns` without importing shutil (and zlib, bz2, lzma with it)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(click.HelpFormatter):
    """click's help formatter, as wide as click makes it, with the width found without shutil."""

    def __init__(self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None):
        from click import formatting

        if width is None and formatting.FORCED_WIDTH is None:  # click's test runner forces a width
            width = max(min(_terminal_columns(), max_width or 80) - 2, 50)
        super().__init__(indent_increment, width, max_width)


class _Context(click.Context):
    formatter_class = _HelpFormatter


class _Command(click.Command):
    context_class = _Context

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, click.Abort):  # Ctrl-C in a command that has no stop of its own
            _interrupted(ctx.params.get("fmt") == "json")


def _colour_enabled(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and bool(getattr(stream, "isatty", lambda: False)())


def _style(text: str, stream: Any = None, **styles: Any) -> str:
    return click.style(text, **styles) if _colour_enabled(stream or sys.stdout) else text


def _fail_usage(error: CohError) -> NoReturn:
    location = f"{error.location}: " if error.location else ""
    click.echo(f"{location}{error.code} {error.message}", err=True)
    sys.exit(EXIT_USAGE)


def _print_problems(problems: Sequence[Problem], err: bool = False, colour: str = "red") -> None:
    stream = sys.stderr if err else sys.stdout
    for problem in problems:
        head = f"{problem.location}: {_style(problem.code, stream, fg=colour, bold=True)} {problem.message}"
        click.echo(head, err=err)
        if problem.context:
            click.echo(problem.context, err=err)


def _load_pack(pack: Path | None, rules: Sequence[str] = ()) -> Pack:
    """The pack (with the overlays in `rules` applied), or exit 1 with its problems."""
    from coh_core.packs import load_pack_checked

    try:
        return load_pack_checked(pack, rules)
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
_expert_iterations_option = click.option(
    "--expert-iterations",
    type=int,
    default=None,
    help="The expert bot's budget: tree iterations per decision it searches (default 32).",
)
_expert_seconds_option = click.option(
    "--expert-seconds",
    type=float,
    default=None,
    help="The expert bot's budget in seconds per decision it searches: not deterministic (how far "
    "it gets depends on the machine); with --expert-iterations, the first reached stops it.",
)


def _expert_budget(
    kinds: Sequence[str], iterations: int | None, seconds: float | None
) -> tuple[int | None, float | None]:
    """The expert's budget as given; USAGE-BUDGET for a value out of range or no expert bot."""
    from coh_core.agents.expert import budget_fault

    fault = budget_fault(iterations, seconds)
    if fault is not None:
        option = f"--expert-{fault[0]}"
        given = iterations if fault[0] == "iterations" else seconds
        raise UsageError(f"{option} {given}: give {fault[1]}", Location(option), code="USAGE-BUDGET")
    if (iterations is not None or seconds is not None) and "expert" not in kinds:
        option = "--expert-iterations" if iterations is not None else "--expert-seconds"
        raise UsageError(
            f"{option} goes with an expert bot (--bots expert)", Location(option), code="USAGE-BUDGET"
        )
    return iterations, seconds


def _existing_pack(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """`--pack` names something that exists (else IO-MISSING, exit 2, as any path given); without
    it, the game `--game` named (its callback ran first if it was given)."""
    if value is not None and not value.exists():
        raise UsageError(f"no such folder: {value}", Location("--pack"), code="IO-MISSING")
    chosen: Path | None = ctx.params.get("pack")
    if value is not None and chosen is not None:
        raise UsageError("give --game or --pack, not both", Location("--pack"), code="USAGE-GAME")
    return value if value is not None else chosen


def _shipped_game(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """`--game NAME`: the pack of a game coh ships, read as if `--pack` named its folder."""
    from coh_core.packs.overlays import shipped_packs
    from coh_core.resources import content_root

    if value is None:
        return
    content = content_root()
    games = shipped_packs(content, "base")
    if value not in games:
        raise UsageError(
            f"no game `{value}` is shipped; the games are {', '.join(games)}",
            Location("--game"),
            code="USAGE-GAME",
        )
    if ctx.params.get("pack") is not None:
        raise UsageError("give --game or --pack, not both", Location("--game"), code="USAGE-GAME")
    ctx.params["pack"] = content / value


def _pack_option(command: Any) -> Any:
    """`--pack DIR` and `--game NAME`: the pack a command reads instead of the built-in base pack."""
    command = click.option(
        "--pack",
        type=_PathType(),
        default=None,
        callback=_existing_pack,
        help="A pack directory to read instead of the built-in base pack.",
    )(command)
    return click.option(
        "--game",
        default=None,
        metavar="NAME",
        expose_value=False,
        callback=_shipped_game,
        help="A game that comes with coh, by name, instead of the built-in base pack"
        " (a name it lacks lists them).",
    )(command)


_rules_option = click.option(
    "--rules",
    "rules",
    multiple=True,
    metavar="OVERLAY",
    help="Play under an overlay: a shipped one by id (rulebook-fr, expert-draft...) or an overlay's"
    " directory; repeat for several (applied in their declared order).",
)
_output_option = click.option(
    "--output",
    "-o",
    type=_PathType(),
    default=None,
    help="Write to this file instead of stdout.",
)


_players_option = click.option(
    "--players",
    type=int,  # (the pack's setup bounds it: GAME-PLAYERS names its range)
    default=4,
    show_default=True,
    help="Seats at the table: as many as the game's setup allows (coh explain setup tells the range).",
)

_lang_option = click.option(
    "--lang",
    "lang",
    default=None,
    metavar="LANG",
    help="Language of the output: one the game has text in (coh i18n check lists them; the"
    " built-in content speaks en, de, es, fr, it), or a regional one such as fr-CA (default:"
    " $COH_LANG, else the system's language, else English).",
)


def _locale(pack: Pack, lang: str | None) -> str:
    """The language to speak: `--lang` as asked (it must exist), else the default (falls back)."""
    from coh_core.i18n import SOURCE_LOCALE, default_locale, fallback_chain, normalize_locale

    if lang is None:
        return default_locale()
    locale = normalize_locale(lang)
    if locale is None:
        raise UsageError(f"`{lang}` is not a language code such as en, fr or pt-BR", code="I18N-LANG")
    chain = fallback_chain(locale)  # ends with English, which every pack has
    if locale.split("-")[0] != SOURCE_LOCALE and not any(step in pack.text for step in chain[:-1]):
        known = ", ".join(pack.locales())
        raise UsageError(f"pack `{pack.id}` has no text in `{locale}` (it has {known})", code="I18N-LANG")
    return locale


def _narrator(pack: Pack, lang: str | None) -> Narrator:
    from coh_core.narrative import Narrator

    return Narrator(pack, _locale(pack, lang))


def _edited_pack(given: Path | None) -> Path | None:
    """The pack a command that reads or writes translations works on: `--pack`, else the pack the
    current directory is in, else (None) the base pack of the content in use (coh_core.resources)."""
    from coh_core.resources import pack_here

    return given or pack_here()


def _pack_shown(loaded: Pack) -> str:
    return f"pack: {_shown_path(loaded.root)}"


def _shown_path(path: Path) -> str:
    """A path as the user would type it: relative to the current directory when below it."""
    from pathlib import Path

    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except (ValueError, OSError):
        return str(path.resolve())


def _own_layer(loaded: Pack, given: Path | None) -> Pack:
    """The pack named by `--pack` itself: an overlay is loaded applied to its base."""
    for overlay in loaded.overlays:
        if given is not None and overlay.root.resolve() == given.resolve():
            return overlay
    return loaded


def _no_such(loaded: Pack, name: str, sections: bool = False) -> NoReturn:
    """REF-UNDEF for an id the pack lacks, with the closest one it has."""
    from coh_core.effects.checker import suggest
    from coh_core.effects.registry import signatures

    known = [i for by_id in loaded.entities.values() for i in by_id]
    known += [*loaded.sections, *signatures()] if sections else []
    what = "entity, section or verb" if sections else "entity"
    raise UsageError(f"no {what} `{name}` in pack `{loaded.id}`" + suggest(name, known), code="REF-UNDEF")


def _write_output(text: str, output: Path | None) -> None:
    """Text to stdout, or to `output` as `write_whole` writes it: a file (a link's too) replaced
    whole, never half of one; a pipe or a device written to; a folder refused (IO-WRITE)."""
    if output is None:
        click.echo(text, nl=False)
        return
    from coh_core.files import write_whole

    write_whole(output, text)


class _Group(click.Group):
    """Turns any CohError escaping a command into a located message and exit code 2."""

    context_class = _Context
    command_class = _Command
    group_class = type  # its groups are of this class too

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CohError as error:
            _fail_usage(error)
        except (KeyboardInterrupt, click.Abort):  # Ctrl-C before a command has begun
            _interrupted(as_json=False)


def _interrupted(as_json: bool) -> NoReturn:
    """Ctrl-C: one line (one JSON document too with `--format json`), exit 130. What a command
    writes is written whole or not at all (`write_whole`): nothing is left half written."""
    import json

    message = "interrupted before the command ended"
    if as_json:
        problem = Problem("INTERRUPTED", message, Location("<stdin>"))
        click.echo(json.dumps({"ok": False, "problems": [problem.to_json()]}, indent=2))
    click.echo("", err=True)  # end the line of the ^C
    click.echo(f"INTERRUPTED {message}", err=True)
    sys.exit(EXIT_INTERRUPTED)


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`coh --version`, read only when asked (the installed distribution's metadata is slow to load);
    click's own version option would fail in a checkout that was never installed."""
    if value and not ctx.resilient_parsing:
        from coh_core.build_info import version_line

        click.echo(version_line())
        ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
def main() -> None:
    """coh: a data-driven rules engine for City of Horror."""


@main.command()
@click.argument("paths", nargs=-1, type=_PathType())
@_format_option
@_lang_option
@_rules_option
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on warnings too: incomplete translations, texts that drift from their effects.",
)
def validate(
    paths: tuple[Path, ...], fmt: str, lang: str | None, rules: tuple[str, ...], strict: bool
) -> None:
    """Check content packs: schema, effects, references, counts, text.

    PATHS are pack directories, manifests, files inside a pack, or folders of packs. With none:
    the pack the current directory is in, else the content of the coh checkout it is in, else
    the installed content. A translation that lacks texts, or translates an older English, is a
    warning (one line per language): the game shows those texts in English. So is a text whose
    numbers or names differ from those of what it describes (TEXT-DRIFT: a card's text that says 2
    over an effect that does 3). --strict fails on warnings.
    """
    import json

    from coh_core.narrative import Verbatim
    from coh_core.packs import validate_paths
    from coh_core.resources import content_root, pack_here

    here = pack_here()
    read = list(paths) or [here or content_root()]
    try:
        report = validate_paths(read, rules, strict)
    except UsageError as error:
        if fmt == "json":
            click.echo(json.dumps({"ok": False, "problems": [error.as_problem().to_json()]}, indent=2))
        _fail_usage(error)
    if fmt == "json":
        click.echo(json.dumps(_report_json(report) | {"read": [_shown_path(p) for p in read]}, indent=2))
    else:
        _print_problems(report.problems)
        _print_problems(report.warnings, colour="yellow")
        narrator = _ui_narrator(lang, report)
        if narrator is not None and not paths:  # the user named none: say what was read
            where = Verbatim(", ".join(_shown_path(p) for p in read))
            click.echo(narrator.ui("ui.validate.read", where=where))
        click.echo(_summary(report, narrator))
    sys.exit(EXIT_OK if report.ok else EXIT_PROBLEMS)


def _ui_narrator(lang: str | None, report: ValidationReport) -> Narrator | None:
    """The command line's own words: the built-in pack's text (None if its manifest is unusable)."""
    from coh_core.packs.loader import load_pack
    from coh_core.resources import content_root

    root = (content_root() / "base").resolve()
    builtin = next((p for p in report.packs if p.root.resolve() == root and not p.overlays), None)
    if builtin is None:  # the built-in pack was not among those validated: read it
        builtin, _ = load_pack(root)
    return _narrator(builtin, lang) if builtin is not None else None


def _summary(report: ValidationReport, narrator: Narrator | None) -> str:
    import json

    from coh_core.narrative import Verbatim

    if narrator is None:  # the built-in text itself is unreadable: bare figures
        return json.dumps(_report_json(report) | {"problems": len(report.problems)})

    def count(name: str, value: int) -> str:
        return narrator.ui(f"ui.validate.count.{name}", count=value)

    counts = Verbatim(
        ", ".join(
            count(name, value)
            for name, value in (
                ("packs", len(report.packs)),
                ("entities", report.entities),
                ("effects", report.effects),
                ("files", report.files),
            )
        )
        + ("; " + count("warnings", len(report.warnings)) if report.warnings else "")
    )
    if report.ok:
        ok = narrator.ui("ui.validate.ok", counts=counts)
        head, _, rest = ok.partition(":")
        return f"{_style(head, fg='green', bold=True)}:{rest}" if rest else ok
    problems = _style(count("problems", len(report.problems)), fg="red", bold=True)
    return narrator.ui("ui.validate.problems", problems=Verbatim(problems), counts=counts)


def _report_json(report: ValidationReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "packs": ["+".join([p.id, *p.rules_id]) for p in report.packs],
        "entities": report.entities,
        "effects": report.effects,
        "files": report.files,
        "problems": [p.to_json() for p in report.problems],
        "warnings": [p.to_json() for p in report.warnings],
    }


@main.command(name="list")
@click.argument("kind")
@_format_option
@_pack_option
@_lang_option
@_rules_option
def list_command(kind: str, fmt: str, pack: Path | None, lang: str | None, rules: tuple[str, ...]) -> None:
    """List the entities of one kind of a pack, named by the section they are written in
    (`coh list characters`; the pack's `kinds` say which there are)."""
    import json

    from coh_core.packs.listing import list_rows, list_sections

    loaded = _load_pack(pack, rules)
    listable = list_sections(loaded)
    if kind not in listable:
        from coh_core.effects.checker import suggest

        raise UsageError(
            f"no kind of entity listed as `{kind}` in pack `{loaded.id}` (listed: {', '.join(listable)})"
            + suggest(kind, listable),
            code="LIST-KIND",
        )
    head, rows, records, footer = list_rows(loaded, kind, _narrator(loaded, lang))
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
@_lang_option
@_rules_option
def show(entity_id: str, fmt: str, pack: Path | None, lang: str | None, rules: tuple[str, ...]) -> None:
    """Show one entity of a pack (of any of its kinds) by its id."""
    import json

    from coh_core.packs.listing import show_entity

    loaded = _load_pack(pack, rules)
    found = show_entity(loaded, entity_id, _narrator(loaded, lang))
    if found is None:
        _no_such(loaded, entity_id)
    text, record = found
    click.echo(json.dumps(record, indent=2, ensure_ascii=False) if fmt == "json" else text)


@main.group()
def i18n() -> None:
    """Translations: check them against the English, start or refresh one, mark entries current."""


@i18n.command(name="check")
@click.option("--lang", "langs", multiple=True, metavar="LANG", help="Check only this language (repeatable).")
@click.option(
    "--summary",
    is_flag=True,
    help="How many problems of each code, and in each file, instead of each problem (same exit code).",
)
@_format_option
@_pack_option
def i18n_check(langs: tuple[str, ...], summary: bool, fmt: str, pack: Path | None) -> None:
    """Per language: missing, extra, stale and placeholder problems, and coverage; exit 1 on any."""
    import json

    from coh_core.packs.i18n_check import check_translations, summarize, translated_locales

    loaded = _load_pack(_edited_pack(pack))
    locales = [_locale(loaded, lang) for lang in langs] or translated_locales(loaded)
    own = _own_layer(loaded, _edited_pack(pack))
    absent = [loc for loc in locales if loc not in loaded.text]
    if absent:
        raise UsageError(f"pack `{loaded.id}` has no {absent[0]} text file", code="I18N-LANG")
    reports = check_translations(loaded, locales)
    ok = all(r.ok for r in reports)
    counted = summarize(reports)
    if fmt == "json":
        found = [r.to_json() for r in reports]
        if summary:  # the counts without the problems themselves
            found = [{k: v for k, v in r.items() if k != "problems"} for r in found]
        document = {"ok": ok, "pack": _shown_path(own.root), "locales": found}
        click.echo(json.dumps({**document, "summary": counted.to_json()} if summary else document, indent=2))
    else:
        if pack is None:  # the user named none: say which
            click.echo(_pack_shown(own))
        for report in reports if not summary else ():
            _print_problems(report.problems)
        if summary:
            _print_summary(counted)
        for report in reports:
            click.echo(_i18n_line(report))
        if not reports:
            click.echo(f"pack `{loaded.id}` has no translations yet: `coh i18n template LANG` starts one")
    sys.exit(EXIT_OK if ok else EXIT_PROBLEMS)


def _print_summary(counted: Any) -> None:
    """`coh i18n check --summary`: the problems by code, then by file (each with its codes)."""
    width = max((len(code) for code in counted.codes), default=0)
    for code, count in counted.codes.items():
        click.echo(f"{_style(code.ljust(width), fg='red', bold=True)} {count:>5}")
    for file, codes in counted.files.items():
        shown = ", ".join(f"{count} {code}" for code, count in codes.items())
        click.echo(f"{file}: {sum(codes.values())} ({shown})")


def _i18n_line(report: Any) -> str:
    counts: dict[str, int] = {}
    for problem in report.problems:
        counts[problem.code] = counts.get(problem.code, 0) + 1
    found = ", ".join(f"{n} {code.removeprefix('I18N-').lower()}" for code, n in sorted(counts.items()))
    state = _style("ok", fg="green", bold=True) if report.ok else _style(found, fg="red", bold=True)
    fallback = " (the rest from its language)" if report.complete_by_fallback else ""
    return (
        f"{report.locale:<6} {report.file}  {report.coverage:5.1f}% translated"
        f" ({report.translated}/{report.total}){fallback}  {state}"
    )


@i18n.command(name="template")
@click.argument("lang")
@click.option("--output", "-o", type=_PathType(), default=None, help="Write here instead of stdout.")
@_pack_option
def i18n_template(lang: str, output: Path | None, pack: Path | None) -> None:
    """A text file for LANG: its current entries kept, English (to translate) for the others."""
    from coh_core.i18n import SOURCE_LOCALE, normalize_locale
    from coh_core.messages import declared_messages
    from coh_core.packs.declarations import declarations_of
    from coh_core.packs.i18n_files import template

    given, pack = pack, _edited_pack(pack)
    loaded = _load_pack(pack)
    if given is None:  # the user named none: say which (stdout is the file)
        click.echo(_pack_shown(_own_layer(loaded, pack)), err=True)
    locale = normalize_locale(lang)
    if locale is None or locale == SOURCE_LOCALE:
        raise UsageError(f"`{lang}` is not a language to translate into", code="I18N-LANG")
    text = template(
        _own_layer(loaded, pack),
        locale,
        declared_messages(loaded.section("messages"), declarations_of(loaded)),
    )
    _write_output(text, output)


@i18n.command(name="stamp")
@click.argument("lang")
@click.argument("keys", nargs=-1)
@click.option("--all-stale", is_flag=True, help="Every stale entry (after revising them all).")
@_pack_option
def i18n_stamp(lang: str, keys: tuple[str, ...], all_stale: bool, pack: Path | None) -> None:
    """Record that the LANG entries KEYS now translate the current English (after revising them)."""
    from coh_core.packs.i18n_check import check_locale
    from coh_core.packs.i18n_files import stamp
    from coh_core.resources import is_installed_copy

    pack = _edited_pack(pack)
    loaded = _own_layer(_load_pack(pack), pack)
    if is_installed_copy(loaded.root):
        raise UsageError(
            f"{_shown_path(loaded.root)} is the copy of the pack installed with coh: stamp the files"
            " you edit (run this inside your checkout, or pass --pack DIR)",
            code="PACK-INSTALLED",
        )
    locale = _locale(loaded, lang)
    chosen = list(keys)
    if all_stale:
        chosen += [
            p.message.split("`")[1] for p in check_locale(loaded, locale).problems if p.code == "I18N-STALE"
        ]
    if not chosen:
        raise UsageError("name the entries to stamp, or pass --all-stale", code="USAGE-ARGS")
    changed = stamp(loaded, locale, list(dict.fromkeys(chosen)))
    entries = f"{len(changed)} entr{'y' if len(changed) == 1 else 'ies'}"
    click.echo(f"{entries} stamped in {locale} ({_pack_shown(loaded)})")


@main.command()
@click.argument("name")
@click.argument("member", required=False)
@_format_option
@_pack_option
@_lang_option
@_rules_option
def explain(
    name: str, member: str | None, fmt: str, pack: Path | None, lang: str | None, rules: tuple[str, ...]
) -> None:
    """An entity, a section (`turn`, `setup`, `components`...), a verb (the pack's or a built-in
    one) or a rule parameter (`coh explain param NAME`) as the rules make it: who set each field,
    and which effects use it."""
    import json

    from coh_core.packs.explain import explain as explain_entity
    from coh_core.packs.explain import explain_builtin, explain_param, render

    loaded = _load_pack(pack, rules)
    if name == "param" and member is not None:
        found = explain_param(loaded, member)
        if found is None:
            _no_such_param(loaded, member)
    elif member is not None:
        raise UsageError(f"`{member}`: only `coh explain param NAME` takes a second name", code="USAGE-ARGS")
    else:
        found = explain_entity(loaded, name, _locale(loaded, lang)) or explain_builtin(loaded, name)
        if found is None:
            _no_such(loaded, name, sections=True)
    if fmt == "json":
        click.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(render(found)))


def _no_such_param(loaded: Pack, name: str) -> NoReturn:
    """REF-UNDEF for a rule parameter the pack lacks, with the closest one it has."""
    from coh_core.effects.checker import suggest

    known = list(loaded.section("params"))
    raise UsageError(
        f"no rule parameter `{name}` in pack `{loaded.id}`" + suggest(name, known), code="REF-UNDEF"
    )


@main.group()
def docs() -> None:
    """Generated documentation."""


@docs.command(name="effects")
@_output_option
def docs_effects(output: Path | None) -> None:
    """The effect-language reference, generated from the registry and the base pack's declarations."""
    from coh_core.effects.docs import generate_reference
    from coh_core.packs import load_pack_checked
    from coh_core.packs.declarations import declarations_of
    from coh_core.packs.effects_index import pack_verbs

    pack = load_pack_checked()
    declared = declarations_of(pack)
    text = generate_reference(declared, pack_verbs(pack, declared))
    _write_output(text, output)


@docs.command(name="procedures")
@_output_option
@_pack_option
@_rules_option
def docs_procedures(output: Path | None, pack: Path | None, rules: tuple[str, ...]) -> None:
    """The steps of the turn structure and the pack's verbs: what each does, and the rule
    parameters each reads (docs/procedures.md for the base pack)."""
    from coh_core.packs.procedures_doc import generate_procedures

    _write_output(generate_procedures(_load_pack(pack, rules)), output)


@docs.command(name="space")
@_output_option
@_pack_option
@_rules_option
@_players_option
def docs_space(output: Path | None, pack: Path | None, rules: tuple[str, ...], players: int) -> None:
    """The action space and the observation layout research tools read, as one JSON document:
    every answer the rules in force can be given with its id, the kinds of answers with the ids
    each takes, and the fields of a seat's observation vector at a table of PLAYERS seats."""
    import json

    from coh_core.engine.observe import observer_for

    game = _seated_game(_load_pack(pack, rules), players, 0)
    space = game.space
    document = {
        "actions": [list(action) for action in space.actions],
        "answers": space.describe(),
        "observation": observer_for(game.rules, game.players).describe(),
    }
    _write_output(json.dumps(document, indent=1, ensure_ascii=False) + "\n", output)


@main.command(name="export")
@_pack_option
@_lang_option
@_rules_option
@_output_option
def export_command(pack: Path | None, lang: str | None, rules: tuple[str, ...], output: Path | None) -> None:
    """Every entity of the rules in force, in one language, as one JSON document.

    Each entity has its data after the overlays, its name and texts in LANG (each with the
    language and pack it came from: English where the language lacks it) and its effects'
    source. The document follows schemas/export.schema.json. A file given with -o (or the
    file a link given leads to) is replaced whole, or left as it was on error; a pipe or a
    device is written to as it is.
    """
    import json

    from coh_core.cards import localize

    loaded = _load_pack(pack, rules)
    # --lang is checked like `coh play`'s; a language taken from the environment falls back.
    document = localize(loaded, _locale(loaded, lang), known_only=False).to_json()
    _write_output(json.dumps(document, indent=2, ensure_ascii=False) + "\n", output)


@main.command(name="schema")
@_pack_option
@_rules_option
@_output_option
def schema_command(pack: Path | None, rules: tuple[str, ...], output: Path | None) -> None:
    """The JSON Schema of the pack's content files, made from its declarations: the sections
    every pack shares, and a list for each kind the pack declares, holding the kind's fields.

    Point an editor at it (a `# yaml-language-server: $schema=...` first line) for completion
    and checks as you type. It is made even while the pack has problems (a new kind's entities
    may not validate yet); those are counted on stderr, and `coh validate` lists them. A file
    given with -o is replaced whole, or left as it was on error.
    """
    from coh_core.packs import TRANSLATION_CODES, check_pack
    from coh_core.packs.pack_schema import schema_of
    from coh_core.resources import content_root

    loaded, found = check_pack(pack or content_root() / "base", rules)
    if loaded is None:
        _print_problems(found, err=True)
        sys.exit(EXIT_PROBLEMS)
    _write_output(schema_of(loaded.docs, loaded.id).written(), output)
    problems = [p for p in found if not p.code.startswith(TRANSLATION_CODES)]
    if problems:
        click.echo(f"note: the pack has {len(problems)} problem(s); `coh validate` lists them", err=True)


@main.command(name="migrate")
@click.argument("pack", type=_PathType())
@click.option(
    "--output", "-o", type=_PathType(), default=None, help="Write the migrated pack to this new folder."
)
@click.option("--in-place", is_flag=True, help="Rewrite the pack's own files.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if the pack needs migrating.")
def migrate_command(pack: Path, output: Path | None, in_place: bool, check: bool) -> None:
    """Rewrite a pack written for an earlier pack format in the current one.

    PACK is the pack's folder. Each change is printed at its place: trigger ids given, list items
    named by id instead of position, fields the pack below moved, verbs' new parameters, the
    manifest's `format`; what cannot be rewritten mechanically is printed as MIGRATE-BY-HAND.
    Comments and layout are kept. With -o OUT the migrated pack is written to the new folder OUT;
    with --in-place its own files are rewritten; each is written whole or not at all. Without
    either nothing is written. Exit 0 when done (or nothing to do), 1 when the pack cannot be
    read or (--check) needs migrating, 2 for a usage error.
    """
    from coh_core.packs.loader import MANIFEST, PACK_FORMAT
    from coh_core.packs.migrate import MigrateError, migrate, write_copy, write_in_place

    if sum(map(bool, (output, in_place, check))) > 1:
        raise UsageError("give one of -o OUT, --in-place and --check", code="MIGRATE-USAGE")
    if not (pack / MANIFEST).is_file():
        raise UsageError(
            f"{pack} is no pack folder (no {MANIFEST} in it)", Location(str(pack)), code="PACK-NOT-FOUND"
        )
    try:
        migration = migrate(pack)
    except MigrateError as error:
        _print_problems([Problem(error.code, error.message, error.location or Location(str(pack)))])
        sys.exit(EXIT_PROBLEMS)
    if migration.written == PACK_FORMAT:
        click.echo(f"{pack} is written in pack format {PACK_FORMAT}: nothing to migrate")
        sys.exit(EXIT_OK)
    for note in migration.notes:
        code = note.step if note.done else "MIGRATE-BY-HAND"
        shown = _style(code, fg="green" if note.done else "yellow", bold=True)
        click.echo(f"{note.location}: {shown} {note.message}")
    changed = len(migration.changed)
    said = f"from pack format {migration.written} to {PACK_FORMAT}: {changed} file(s) changed"
    if check:
        click.echo(f"{pack} needs migrating {said}; nothing written")
        sys.exit(EXIT_PROBLEMS)
    if output is not None:
        write_copy(migration, output)
        click.echo(f"migrated {said}, written to {output}; check it: coh validate {output}")
    elif in_place:
        write_in_place(migration)
        click.echo(f"migrated {said}, in place; check it: coh validate {pack}")
    else:
        click.echo(f"would migrate {said}; nothing written (add -o OUT or --in-place)")
    sys.exit(EXIT_OK)


# --- playing ---------------------------------------------------------------------------------


def _agents(
    game: Any,
    bots: str,
    humans: Sequence[str],
    seed: int,
    narrator: Any,
    err: bool = False,
    budget: tuple[int | None, float | None] = (None, None),
) -> dict[str, Any]:
    """A bot for each seat but the humans', who share one terminal (hotseat when several)."""
    from coh_core.agents import make_agent
    from coh_core.agents.terminal import TerminalAgent

    terminal = TerminalAgent(narrator, err, hotseat=len(humans) > 1)
    return {
        colour: terminal
        if colour in humans
        else make_agent(bots, seed * 7919 + index, narrator, err, *budget)
        for index, colour in enumerate(game.players)
    }


def _human_colours(pack: Pack, narrator: Narrator, given: Sequence[str]) -> list[str]:
    """The colours `--human` names: a colour's id or its name in the game's language, in any case."""
    known = [str(c) for c in pack.section("components").get("colours") or []]
    forms: dict[str, str] = {}
    for colour in known:
        for form in (colour, str(narrator.player(colour))):
            forms.setdefault(form.strip().casefold(), colour)
    chosen: list[str] = []
    for name in given:
        found = forms.get(name.strip().casefold())
        if found is None:
            choices = ", ".join(_colour_choice(narrator, c) for c in known)
            raise UsageError(
                f"--human {name!r} is not a colour of the game; choose from {choices}", code="USAGE-HUMAN"
            )
        if found in chosen:
            raise UsageError(f"--human {name!r} is given twice: each colour is one seat", code="USAGE-HUMAN")
        chosen.append(found)
    return chosen


def _colour_choice(narrator: Narrator, colour: str) -> str:
    """A colour as `--human` takes it: its id, and its name when that is another word."""
    name = str(narrator.player(colour))
    return colour if name.casefold() == colour.casefold() else f"{colour} ({name})"


def _seats(pack: Pack, players: int, humans: Sequence[str]) -> list[str] | None:
    """The colours at the table: the pack's first ones, each human's colour in the place of the
    last of them it is not among; None (the pack's first ones) when no human names a colour."""
    if not humans:
        return None
    if len(humans) > players:
        raise UsageError(
            f"{len(humans)} humans (--human) for {players} seats (--players)", code="USAGE-HUMAN"
        )
    known = [str(c) for c in pack.section("components").get("colours") or []]
    others = [c for c in known if c not in humans][: players - len(humans)]
    return [c for c in known if c in humans or c in others]


def _play_json(game: Any, seed: int, decisions: int) -> dict[str, Any]:
    return {
        "pack": game.state["pack"],
        "seed": seed,
        "players": game.players,
        "decisions": decisions,
        "digest": game.digest(),
        "result": _result_with_breakdown(game),
    }


def _result_with_breakdown(game: Any) -> Any:
    """The game's result once it is over: the kind the pack declares, then what the game set (a
    ranking's scores, tie-break values and winners; a team's `won`), and of a ranking each
    player's score part by part (`breakdown`)."""
    from coh_core.narrative import breakdown

    result, declared = game.state["result"], game.rules.result
    if not isinstance(result, dict) or declared is None:
        return result
    found = {"kind": declared.kind, **result}
    if declared.ranked:
        found["breakdown"] = breakdown(game, game.rules.pack)
    return found


@main.command()
@_players_option
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the game's random generator (by default a new one, printed to play the game again).",
)
@click.option(
    "--bots",
    type=click.Choice(["random", "heuristic", "expert"]),
    default="heuristic",
    show_default=True,
    help="Who plays the seats no human takes.",
)
@click.option(
    "--human", "humans", multiple=True, help="A colour played at this terminal (repeat for hotseat)."
)
@_expert_iterations_option
@_expert_seconds_option
@click.option("--log", "log_path", type=_PathType(), default=None, help="Write the decision log here.")
@click.option(
    "--save",
    "save_path",
    type=_PathType(),
    default=None,
    help="Keep the game in this file after every decision (to go on with --resume).",
)
@click.option(
    "--resume",
    "resume_path",
    type=_PathType(),
    default=None,
    help="Go on with a game saved by --save (and keep saving it there).",
)
@_format_option
@_pack_option
@_lang_option
@_rules_option
@click.pass_context
def play(
    ctx: click.Context,
    players: int,
    seed: int | None,
    bots: str,
    humans: tuple[str, ...],
    expert_iterations: int | None,
    expert_seconds: float | None,
    log_path: Path | None,
    save_path: Path | None,
    resume_path: Path | None,
    fmt: str,
    pack: Path | None,
    lang: str | None,
    rules: tuple[str, ...],
) -> None:
    """Play a full game: bots (and humans) at the table, a narrative, then the scoreboard.

    A game the engine cannot go on with (a pack past a bound, an effect that fails) stops with
    its problem located in the pack, exit 1; the end of the input stops it with exit 2, Ctrl-C
    with exit 130. `--log` is written in every case once the game has begun (without an end
    line when it did not finish), and `--format json` always prints one JSON document.

    With `--save FILE` the game is saved after every decision; `--resume FILE` goes on with it
    (under the saved seats, bots, seed and rules) and keeps saving it there.
    """
    import json
    from pathlib import Path

    from coh_core.agents.saving import PlaySetup
    from coh_core.engine import EngineError
    from coh_core.engine.record_text import RecordError
    from coh_core.narrative import Verbatim, scoreboard
    from coh_core.packs import load_pack_checked

    as_json = fmt == "json"
    drawn = seed is None and resume_path is None  # a seed of our own, told so the game can be replayed
    if seed is None:
        seed = new_seed()
    setup = PlaySetup(seed, bots, list(humans), list(rules), None if pack is None else str(pack), lang)
    session = _Session(as_json, log_path, seed, {"bots": bots, "humans": list(humans)})
    session.setup, session.save_path = setup, save_path
    try:
        if resume_path is not None:
            _refuse_with_resume(ctx)
            resumed = session.resume(resume_path, lang, log_path, save_path)
            setup = session.setup
        else:
            if not MIN_SEED <= seed <= MAX_SEED:  # as a game record holds it (`coh replay` reads it)
                wanted = f"--seed {seed}: give a seed from {MIN_SEED} to {MAX_SEED}"
                raise UsageError(wanted, Location("--seed"), code="USAGE-SEED")
            session.pack = load_pack_checked(pack, rules)
            resumed = None
        if resumed is not None:  # the saved budget, unless given again
            expert_iterations = (
                setup.expert.get("iterations") if expert_iterations is None else expert_iterations
            )
            expert_seconds = setup.expert.get("seconds") if expert_seconds is None else expert_seconds
        session.budget = _expert_budget([setup.bots], expert_iterations, expert_seconds)
        setup.expert = {
            name: value
            for name, value in (("iterations", expert_iterations), ("seconds", expert_seconds))
            if value is not None
        }
        assert session.pack is not None
        narrator = _narrator(session.pack, setup.lang)
        session.narrator = narrator
        if resumed is None:
            setup.humans = _human_colours(session.pack, narrator, humans)
            setup.pack = None if pack is None else str(pack.resolve())
            setup.rules = [str(Path(r).resolve()) if Path(r).is_dir() else r for r in rules]
            setup.log = None if log_path is None else str(log_path.resolve())
        humans = tuple(setup.humans)
        # a game of bots alone takes seconds: a line on a terminal's stderr follows its turns
        session.progress = not humans and not as_json and sys.stderr.isatty()
        if drawn and not as_json:  # (a JSON document holds its seed)
            click.echo(narrator.ui("ui.play.seed", seed=Verbatim(str(seed))))
        decisions = session.run(players, setup.bots, humans, resumed)
    except RecordError as exc:
        session.stop(exc.problems, EXIT_PROBLEMS)
    except ContentError as exc:
        after = f"{len(exc.problems)} problem(s): fix the pack first (coh validate)"
        session.stop(exc.problems, EXIT_PROBLEMS, after=after)
    except UsageError as exc:
        session.stop([exc.as_problem()], EXIT_USAGE)
    except EngineError as exc:
        session.stop([session.located(exc)], EXIT_PROBLEMS)
    except EOFError:
        session.stop_input("PLAY-INPUT-ENDED", "the input ended before the game did", EXIT_USAGE)
    except (KeyboardInterrupt, click.Abort):
        session.stop_input("PLAY-INTERRUPTED", "interrupted before the game ended", EXIT_INTERRUPTED)
    except Exception as exc:  # never a traceback: an engine failure still ends in a report
        from coh_core.engine.compile.where import runtime_message

        session.stop([Problem("ENGINE-INTERNAL", runtime_message(exc), Location("<coh>"))], EXIT_PROBLEMS)
    game = session.game
    unwritten = session.write_log()
    if unwritten:
        session.stop(unwritten, EXIT_USAGE)
    if as_json:
        click.echo(json.dumps(_play_json(game, setup.seed, decisions), indent=2))
        return
    if humans:  # the end of the game as the first human saw it since their last answer
        terminal = session.agents[humans[0]]  # in hotseat, what every one of them saw
        terminal.show_news(game.view(humans[0]), public=terminal.hotseat)
    else:
        shown = [(e, p) for e, p in zip(game.log, game.places, strict=True) if "to" not in e]
        for line in narrator.story([e for e, _ in shown], [p for _, p in shown]):
            _echo_fitted(line)
    for line in scoreboard(game, narrator):
        _echo_fitted(line)


def _echo_fitted(line: str) -> None:
    """A line on stdout, wrapped at blanks to the width when stdout is a terminal."""
    if sys.stdout.isatty():
        import shutil

        from coh_core.agents.terminal import wrapped

        line = wrapped(line, shutil.get_terminal_size().columns)
    click.echo(line)


# What a saved game keeps: these options cannot be given again with --resume.
_KEPT_BY_A_SAVE = ("players", "seed", "bots", "humans", "rules", "pack")


def _refuse_with_resume(ctx: click.Context) -> None:
    """USAGE-RESUME when an option that the save keeps is given with --resume."""
    from click.core import ParameterSource

    given = [
        name for name in _KEPT_BY_A_SAVE if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
    ]
    if given:
        options = ", ".join(f"--{'human' if n == 'humans' else n}" for n in given)
        raise UsageError(
            f"--resume goes on with the saved game as it was set up; {options} cannot be given with it"
            " (only --lang, --log, --save, --format and the expert's budget can)",
            code="USAGE-RESUME",
        )


def _say(problems: Sequence[Problem]) -> None:
    """Problems on stderr: located ones with their place, the command line's as `_fail_usage` does."""
    _print_problems([p for p in problems if p.location.file != _NOWHERE], err=True)
    for problem in problems:
        if problem.location.file == _NOWHERE:
            click.echo(f"{problem.code} {problem.message}", err=True)


_NOWHERE = "<coh>"  # the file of a problem that has no place (see CohError.as_problem)
# Engine errors about the seats asked for: the command line's fault, not the pack's.
_SEATING_CODES = frozenset({"GAME-PLAYERS", "GAME-COLOURS"})


def _seated_game(pack: Pack, players: int, seed: int, colours: list[str] | None = None) -> Any:
    """A new game at `players` seats; seats the pack refuses are the command line's fault:
    UsageError GAME-PLAYERS or GAME-COLOURS (exit 2), for `coh play` and `coh simulate` alike."""
    from coh_core.engine import EngineError, new_game

    try:
        return new_game(pack, players=players, seed=seed, colours=colours)
    except EngineError as exc:
        if exc.code in _SEATING_CODES:
            raise UsageError(exc.message, code=exc.code) from None
        raise


def _stop(
    problems: Sequence[Problem],
    exit_code: int,
    as_json: bool,
    instead: str = "",
    after: str = "",
    also: Sequence[Problem] = (),
) -> NoReturn:
    """End a command that cannot go on: its problems (and `also`) as one JSON document on stdout
    with --format json and, on stderr, each one located (or the line `instead` of `problems`)."""
    import json

    if as_json:
        found = [p.to_json() for p in [*problems, *also]]
        click.echo(json.dumps({"ok": False, "problems": found}, indent=2))
    if instead:
        click.echo(instead, err=True)
    else:
        _say(problems)
    _say(also)
    if after:
        click.echo(after, err=True)
    sys.exit(exit_code)


class _Session:
    """One `coh play`: what has been set up so far, and how it stops when it cannot go on."""

    def __init__(self, as_json: bool, log_path: Path | None, seed: int, extra: dict[str, Any]):
        self.as_json = as_json
        self.log_path = log_path
        self.seed = seed
        self.extra = extra
        self.pack: Pack | None = None
        self.narrator: Narrator | None = None
        self.game: Any = None
        self.agents: dict[str, Any] = {}
        self.setup: Any = None  # the PlaySetup a save keeps
        self.save_path: Path | None = None
        self.saved = False  # whether the save holds this game
        self.budget: tuple[int | None, float | None] = (None, None)  # the expert's (saved in `setup`)
        self.progress = False  # a line on stderr that follows a game no human plays (a terminal's)
        self._shown: Any = None  # the turn the progress line last showed

    def resume(
        self, path: Path, lang: str | None, log_path: Path | None, save_path: Path | None
    ) -> tuple[Any, dict[str, Any]]:
        """Read a save and its rules: the position and the save's fields; the setup it keeps."""
        from pathlib import Path

        from coh_core.agents.saving import read_save, restore_game
        from coh_core.packs import load_pack_checked

        setup, doc, line = read_save(path)
        if lang is not None:
            setup.lang = lang
        if log_path is not None:
            setup.log = str(log_path.resolve())
        self.setup, self.seed = setup, setup.seed
        self.extra = {"bots": setup.bots, "humans": list(setup.humans)}
        self.log_path = None if setup.log is None else Path(setup.log)
        self.save_path = path if save_path is None else save_path
        self.pack = load_pack_checked(None if setup.pack is None else Path(setup.pack), tuple(setup.rules))
        return restore_game(self.pack, doc, line), doc

    def run(
        self, players: int, bots: str, humans: tuple[str, ...], resumed: tuple[Any, dict[str, Any]] | None
    ) -> int:
        """Seat the players (or take the saved game) and play the game out; returns the decisions made."""
        from coh_core.agents.runner import play_out
        from coh_core.engine.rng import Rng

        assert self.pack is not None
        if resumed is not None:
            game, doc = resumed
        else:
            game = _seated_game(self.pack, players, self.seed, _seats(self.pack, players, humans))
        self.agents = _agents(game, bots, humans, self.seed, self.narrator, self.as_json, self.budget)
        if resumed is not None:
            for colour, state in doc["generators"].items():
                self.agents[colour].rng = Rng(state)
            if humans:
                self.agents[humans[0]].seen.update(doc["seen"])
                self.agents[humans[0]].restore_passing(doc.get("passing") or {})
        self.game = game  # the game has begun: from now on it has a record
        self.save()
        play_out(game, self.agents, after=self.answered)
        return int(self.setup.decisions)

    def answered(self, game: Any) -> None:
        """After each answer: count it, save the game, and show how far it is (`progress`)."""
        self.setup.decisions += 1
        self.save()
        if self.progress and self.narrator is not None and (game.state["turn"], game.over) != self._shown:
            self._shown = (game.state["turn"], game.over)
            line = self.narrator.ui("ui.play.progress", turn=game.state["turn"], count=self.setup.decisions)
            click.echo("\r\x1b[K" + ("" if game.over else line), err=True, nl=False)

    def save(self) -> None:
        """Keep the game in `--save`'s file (UsageError IO-WRITE if it cannot be written)."""
        from coh_core.agents.saving import save_text, write_save
        from coh_core.agents.terminal import TerminalAgent

        if self.save_path is None or self.game is None:
            return
        terminal = next((a for a in self.agents.values() if isinstance(a, TerminalAgent)), None)
        seen = terminal.seen if terminal is not None else {}
        passing = terminal.passing_json() if terminal is not None else {}
        write_save(self.save_path, save_text(self.game, self.setup, self.agents, seen, passing))
        self.saved = True

    def located(self, error: CohError) -> Problem:
        """The error as a problem, with the pack's source line and a caret when it has a place."""
        problem = error.as_problem()
        where = problem.location
        docs = (
            [] if self.pack is None else [*self.pack.docs, *(d for o in self.pack.overlays for d in o.docs)]
        )
        doc = next((d for d in docs if str(d.path) == where.file), None)
        if doc is None or where.line <= 0:
            return problem
        caret = f"    {doc.source_line(where.line)}\n    {' ' * max(where.col - 1, 0)}^"
        return Problem(problem.code, problem.message, where, caret)

    def write_log(self) -> list[Problem]:
        """Write `--log` (once) for a game that has begun; the problem if it cannot be written."""
        from coh_core.engine.record import write_record

        path, self.log_path = self.log_path, None
        if path is None or self.game is None:
            return []
        try:
            write_record(path, self.game, self.seed, self.extra)
        except OSError as exc:
            return [UsageError(f"cannot write {path}: {exc.strerror}", code="IO-WRITE").as_problem()]
        return []

    def stop_input(self, code: str, message: str, exit_code: int) -> NoReturn:
        """The person at the terminal is gone: one line in their language, the log, the exit code."""
        from coh_core.agents.terminal import TerminalAgent
        from coh_core.narrative import Verbatim

        key = "ui.play.input_ended" if code == "PLAY-INPUT-ENDED" else "ui.play.interrupted"
        words = self.narrator.ui(key) if self.narrator is not None else message
        if any(isinstance(agent, TerminalAgent) for agent in self.agents.values()):
            click.echo("", err=True)  # end the line of the question left unanswered (or the ^C)
        if self.saved and self.narrator is not None:
            words += "\n" + self.narrator.ui("ui.play.saved", path=Verbatim(str(self.save_path)))
        self.stop([Problem(code, message, Location("<stdin>"))], exit_code, instead=words)

    def stop(
        self, problems: Sequence[Problem], exit_code: int, instead: str = "", after: str = ""
    ) -> NoReturn:
        """End the command: the record so far, then every problem as one JSON document on stdout
        (with --format json) and, on stderr, each one located (or the line `instead` of them)."""
        _stop(problems, exit_code, self.as_json, instead, after, also=self.write_log())


@main.command()
@click.argument("record", type=_PathType())
@_format_option
@_pack_option
@_rules_option
def replay(record: Path, fmt: str, pack: Path | None, rules: tuple[str, ...]) -> None:
    """Replay a decision log (under the rules it was played with); check its digest and result.

    Exit 1 for anything wrong in the record (each problem located at its line and column),
    2 when the file cannot be read.
    """
    import json

    from coh_core.engine import EngineError
    from coh_core.engine.record import RecordError
    from coh_core.engine.record import replay as replay_record

    loaded = _load_pack(pack, rules)
    try:
        game = replay_record(loaded, record)
    except UsageError as error:
        if fmt == "json":
            click.echo(json.dumps({"ok": False, "problems": [error.as_problem().to_json()]}, indent=2))
        _fail_usage(error)
    except EngineError as exc:
        problems = exc.problems if isinstance(exc, RecordError) else [exc.as_problem()]
        if fmt == "json":
            click.echo(json.dumps({"ok": False, "problems": [p.to_json() for p in problems]}, indent=2))
        _print_problems(problems, err=True)
        sys.exit(EXIT_PROBLEMS)
    digest = game.digest()
    if fmt == "json":
        document = {"ok": True, "over": game.over, "decisions": len(game.history), "digest": digest}
        click.echo(json.dumps(document | {"expected": digest, "problems": []}, indent=2))
    else:
        click.echo(f"{_style('ok', fg='green', bold=True)}: {len(game.history)} decisions, digest {digest}")
    sys.exit(EXIT_OK)


def _pack_scenarios(root: Path) -> list[tuple[Pack, Path]]:
    """The scenarios a pack lists, each to run under that pack (an overlay applied to its base)."""
    from coh_core.packs.loader import scenario_files

    loaded = _load_pack(root)
    layer = _own_layer(loaded, root)
    files, problems = scenario_files(layer)
    if not files and not problems:
        problems = [
            Problem("SCENARIO-NONE", "the manifest lists no `scenarios`", layer.manifest_doc.location(()))
        ]
    if problems:
        _print_problems(problems, err=True)
        sys.exit(EXIT_PROBLEMS)
    return [(loaded, f) for f in files]


@main.group()
def scenario() -> None:
    """Rules scenarios: a partial state, scripted answers, checks."""


@scenario.command(name="run")
@click.argument("paths", nargs=-1, required=True, type=_PathType())
@_format_option
@_pack_option
def scenario_run(paths: tuple[Path, ...], fmt: str, pack: Path | None) -> None:
    """Run scenario files, folders of them, or the scenarios a pack's manifest lists (PATH a pack
    directory: under that pack); exit 1 if any check fails."""
    import json

    from coh_core.engine.scenario import run_file

    runs: list[tuple[Pack, Path]] = []
    for path in paths:
        if (path / "pack.yaml").is_file():
            runs.extend(_pack_scenarios(path))
            continue
        loaded = _load_pack(pack)
        if path.is_dir():
            runs.extend((loaded, f) for f in sorted(path.rglob("*.yaml")))
        elif path.is_file():
            runs.append((loaded, path))
        else:
            raise UsageError(f"no such file or folder: {path}", code="IO-READ")
    outcomes = [run_file(loaded, f, _shown_path(f)) for loaded, f in runs]
    failed = [o for o in outcomes if not o.ok]
    if fmt == "json":
        records = [
            {"path": o.path, "name": o.name, "ok": o.ok, "problems": [p.to_json() for p in o.problems]}
            for o in outcomes
        ]
        click.echo(json.dumps({"ok": not failed, "scenarios": records}, indent=2))
    else:
        for outcome in outcomes:
            mark = _style("pass", fg="green") if outcome.ok else _style("FAIL", fg="red", bold=True)
            click.echo(f"{mark} {outcome.path}: {outcome.name}")
            _print_problems(outcome.problems)
        click.echo(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)


# --- simulating ------------------------------------------------------------------------------


def _variants(
    names: tuple[str, ...], compare: bool, common: tuple[str, ...], players: tuple[int, ...]
) -> list[Any]:
    """The variants to play: each name `base` (no overlay) or overlays joined by `+`, after the
    common `--rules`; one variant per name and table size. USAGE-SIM for a name with an empty
    part, or named twice."""
    from coh_core.sim.games import Variant

    if compare and len(names) < 2:
        raise UsageError(
            "--compare needs at least two variants, such as: --compare base OVERLAY", code="USAGE-SIM"
        )
    if names and not compare:
        raise UsageError(f"`{names[0]}`: variants are named after --compare", code="USAGE-SIM")
    for index, name in enumerate(names):
        if not all(name.split("+")):
            raise UsageError(
                f"variant `{name}` has an empty part: each is `base`, an overlay's id or its directory",
                Location("--compare"),
                code="USAGE-SIM",
            )
        if name in names[:index]:
            raise UsageError(f"variant `{name}` is named twice", Location("--compare"), code="USAGE-SIM")
    found = []
    for name in names or ("base",):
        extra = tuple(_overlay_arg(part) for part in name.split("+") if part != "base")
        found += [Variant(name, tuple(_overlay_arg(r) for r in common) + extra, n) for n in players]
    return found


def _overlay_arg(given: str) -> str:
    """An overlay as workers can find it: an existing directory made absolute, else a shipped id."""
    from pathlib import Path

    return str(Path(given).resolve()) if Path(given).is_dir() else given


def _bot_kinds(bots: str, players: tuple[int, ...]) -> tuple[str, ...]:
    from coh_core.agents import BOT_KINDS

    kinds = tuple(k.strip() for k in bots.split(","))
    unknown = [k for k in kinds if k not in BOT_KINDS]
    if unknown:
        raise UsageError(f"--bots {unknown[0]!r}: the bots are {', '.join(BOT_KINDS)}", code="USAGE-SIM")
    if len(kinds) > 1 and any(n != len(kinds) for n in players):
        raise UsageError(f"--bots {bots}: one kind per seat needs {len(kinds)} players", code="USAGE-SIM")
    return kinds


def _check_table_sizes(players: tuple[int, ...]) -> None:
    """USAGE-SIM for a table size given twice (its games would be played, and counted, twice)."""
    twice = next((n for i, n in enumerate(players) if n in players[:i]), None)
    if twice is not None:
        raise UsageError(f"--players {twice} is given twice", Location("--players"), code="USAGE-SIM")


def _check_processes(ctx: click.Context, workers: int, backend: str, scheduler: str | None) -> None:
    """USAGE-SIM for a count of worker processes that means none or too many, or options of one
    backend given with the other; SIM-SCHEDULER for an empty address."""
    from click.core import ParameterSource

    from coh_core.limits import MAX_WORKERS

    if workers == 0:
        raise UsageError("--workers 0: give a number of processes, or -1 for every core", code="USAGE-SIM")
    if workers > MAX_WORKERS:
        raise UsageError(f"--workers {workers}: at most {MAX_WORKERS} processes", code="USAGE-SIM")
    if backend == "dask" and ctx.get_parameter_source("workers") is not ParameterSource.DEFAULT:
        raise UsageError(
            "--workers goes with --backend joblib (a Dask cluster has its own)", code="USAGE-SIM"
        )
    if scheduler is not None and backend != "dask":
        raise UsageError("--scheduler goes with --backend dask", code="USAGE-SIM")
    if scheduler == "":
        raise UsageError(
            "an empty address: give one such as tcp://HOST:8786",
            Location("--scheduler"),
            code="SIM-SCHEDULER",
        )


def new_seed() -> int:
    """A seed for a game given none: a new one each time, short enough to type again."""
    import secrets

    return secrets.randbelow(NEW_SEEDS) + 1


def _check_seed(seed: int, games: int) -> None:
    """USAGE-SEED unless every game's seed fits in a game record (`coh replay` reads 64 bits)."""
    from coh_core.sim.games import base_seeds, game_seed

    low, high = base_seeds(games)
    if not low <= seed <= high:
        first, last = game_seed(seed, 0), game_seed(seed, games - 1)
        raise UsageError(
            f"--seed {seed}: the games' seeds ({first} to {last}) go past 64 bits;"
            f" with --games {games}, give a seed from {low} to {high}",
            Location("--seed"),
            code="USAGE-SEED",
        )


class _Interruptions:
    """While a command runs, SIGTERM and SIGHUP stop it as Ctrl-C does (KeyboardInterrupt), so
    that what it set up is undone on its way out; `exit_code` is then 128 and the signal's
    number, as shells report a process a signal ended (130 for Ctrl-C). A signal ignored when
    the command starts (`nohup`, a background job) stays ignored."""

    def __init__(self) -> None:
        import signal

        self.number = int(signal.SIGINT)
        self.before: dict[int, Any] = {}

    @property
    def exit_code(self) -> int:
        return 128 + self.number

    def __enter__(self) -> _Interruptions:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return self  # (only the main thread may set handlers, and receives signals)
        defaults = {"SIGINT": signal.default_int_handler, "SIGTERM": signal.SIG_DFL, "SIGHUP": signal.SIG_DFL}
        for name, default in defaults.items():
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is default:
                self.before[number] = signal.signal(number, self._raise)
        return self

    def _raise(self, number: int, frame: Any) -> NoReturn:
        self.number = number
        raise KeyboardInterrupt

    def ignore(self) -> None:
        """From now on the command ends as it has begun to, whatever signal comes."""
        import signal

        for number in self.before:
            signal.signal(number, signal.SIG_IGN)

    def __exit__(self, *exc: object) -> None:
        import signal

        for number, handler in self.before.items():
            signal.signal(number, handler)


class _Outcome:
    """What a `coh simulate` has done so far, for the line that ends it when it is interrupted."""

    def __init__(self) -> None:
        self.folder: Any = None  # the WholeFolder of --out, once it is checked
        self.printed = False  # whether the JSON document is on stdout

    def interrupted(self, out: Path) -> str:
        where = _shown_path(out)
        if self.folder is not None and self.folder.done:
            return f"interrupted after the report was written in {where}"
        return f"interrupted before the report was written: {where} is as it was"


@main.command()
@click.argument("variants", nargs=-1)
@click.option(
    "--compare", is_flag=True, help="Compare the variants named after it (`base`, OVERLAY, A+B...)."
)
@click.option(
    "--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True, help="Games per variant."
)
@click.option(
    "--players",
    type=click.IntRange(1, 12),
    multiple=True,
    default=(4,),
    show_default=True,
    help="Seats (repeatable).",
)
@click.option(
    "--bots",
    default="heuristic",
    show_default=True,
    help="random, heuristic or expert, or one per seat: expert,heuristic,heuristic,heuristic",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="Base seed: game i has the same seed in every variant.",
)
@click.option(
    "--workers",
    type=int,
    default=-1,
    show_default=True,
    help="Processes (-1: every core, -2: all but one...).",
)
@click.option("--backend", type=click.Choice(["joblib", "dask"]), default="joblib", show_default=True)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="A Dask scheduler (tcp://host:8786) for --backend dask.",
)
@click.option(
    "--out",
    type=_PathType(),
    default="simulation",
    show_default=True,
    help="Output folder: its report files are replaced all together, its other files left alone.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="A progress bar on stderr.")
@_expert_iterations_option
@_expert_seconds_option
@_format_option
@_pack_option
@_rules_option
@click.pass_context
def simulate(
    ctx: click.Context,
    variants: tuple[str, ...],
    compare: bool,
    games: int,
    players: tuple[int, ...],
    bots: str,
    seed: int,
    workers: int,
    backend: str,
    scheduler: str | None,
    out: Path,
    progress: bool,
    expert_iterations: int | None,
    expert_seconds: float | None,
    fmt: str,
    pack: Path | None,
    rules: tuple[str, ...],
) -> None:
    """Play many bot games per variant of the rules and report their balance (needs the extra sim).

    Every variant plays the same game seeds; the numbers do not depend on the worker count.
    Writes games.jsonl, summary.json and report.md with its plots in --out: every argument and
    --out are checked before any game, and the files are written aside then moved in together,
    so that an error or Ctrl-C (exit 130) leaves the previous report whole.
    """
    as_json = fmt == "json"
    outcome = _Outcome()
    with _Interruptions() as interruptions:
        try:
            _simulate(
                ctx, outcome, variants, compare, games, players, bots, seed, workers, backend,
                scheduler, out, progress, (expert_iterations, expert_seconds), as_json, pack, rules,
            )  # fmt: skip
        except UsageError as error:
            _stop([error.as_problem()], EXIT_USAGE, as_json)
        except ContentError as exc:
            after = f"{len(exc.problems)} problem(s): fix the pack first (coh validate)"
            _stop(exc.problems, EXIT_PROBLEMS, as_json, after=after)
        # The engine's errors (setting a game up) by their base class: importing the engine
        # here, before Ctrl-C is handled, would take a third of a second.
        except CohError as exc:
            _stop([exc.as_problem()], EXIT_PROBLEMS, as_json)
        except (KeyboardInterrupt, click.Abort):
            interruptions.ignore()  # a second Ctrl-C does not cut this short
            problem = Problem("SIM-INTERRUPTED", outcome.interrupted(out), Location(_NOWHERE))
            _stop([problem], interruptions.exit_code, as_json and not outcome.printed)
        except Exception as exc:  # never a traceback: a game or a plot that fails is a located problem
            from coh_core.engine.compile.where import runtime_message

            _stop(
                [Problem("ENGINE-INTERNAL", runtime_message(exc), Location(_NOWHERE))], EXIT_PROBLEMS, as_json
            )


def _simulate(
    ctx: click.Context,
    outcome: _Outcome,
    variants: tuple[str, ...],
    compare: bool,
    games: int,
    players: tuple[int, ...],
    bots: str,
    seed: int,
    workers: int,
    backend: str,
    scheduler: str | None,
    out: Path,
    progress: bool,
    budget_given: tuple[int | None, float | None],
    as_json: bool,
    pack: Path | None,
    rules: tuple[str, ...],
) -> None:
    """`coh simulate` itself: every check, then the games, the report and the output."""
    import json

    from coh_core.sim import DASK_HINT, INSTALL_HINT, OUTPUTS, missing_libraries

    missing = missing_libraries()
    if backend == "dask":
        missing += missing_libraries(("distributed",))
    if missing:
        hint = DASK_HINT if missing == ["distributed"] else INSTALL_HINT
        raise UsageError(f"coh simulate needs {', '.join(missing)}: {hint}", code="SIM-EXTRA")
    from coh_core.files import WholeFolder, check_folder
    from coh_core.packs import load_pack_checked

    # Everything that can be checked is, before any game: first the arguments, then the packs.
    _check_processes(ctx, workers, backend, scheduler)
    _check_table_sizes(players)
    kinds = _bot_kinds(bots, players)
    budget = _expert_budget(kinds, *budget_given)
    _check_seed(seed, games)
    chosen = _variants(variants, compare, rules, players)
    check_folder(out, OUTPUTS, Location("--out"))
    if scheduler:
        from coh_core.sim.games import unreachable

        why = unreachable(scheduler)  # in seconds, not after Dask's own long wait
        if why is not None:
            raise UsageError(f"`{scheduler}`: {why}", Location("--scheduler"), code="SIM-SCHEDULER")
    from coh_core.sim.games import game_seed
    from coh_core.sim.run import simulate as run_simulation
    from coh_core.sim.run import skip_last_collections

    skip_last_collections()
    pack_root = str(pack.resolve()) if pack else None
    # every variant's problems here, before any worker starts; the games use these packs
    loaded = {(pack_root, o): load_pack_checked(pack, o) for o in dict.fromkeys(v.overlays for v in chosen)}
    for variant in chosen:  # the seats, as `coh play` checks them
        _seated_game(loaded[pack_root, variant.overlays], variant.players, game_seed(seed, 0))
    outcome.folder = WholeFolder(out, OUTPUTS, "--out")
    with outcome.folder as folder:  # where the files are written, before they are moved into --out
        try:
            records, summary = run_simulation(
                chosen, games, pack_root=pack_root, bots=kinds, seed=seed, workers=workers,
                backend=backend, scheduler=scheduler, progress=progress, packs=loaded, expert=budget,
            )  # fmt: skip
        except (OSError, TimeoutError) as exc:  # a scheduler that cannot be reached, a worker lost
            raise UsageError(f"the games could not be run: {exc}", code="SIM-BACKEND") from exc
        from coh_core.sim.games import worker_count
        from coh_core.sim.report import write_report

        settings = {
            "games": games,
            "players": list(players),
            "bots": list(kinds),
            "seed": seed,
            "pack": pack_root,
            # the expert's budget as given (None: its default); a time budget makes the games differ
            "expert": {"iterations": budget[0], "seconds": budget[1]} if "expert" in kinds else None,
            "variants": [
                {"name": v.name, "overlays": list(v.overlays), "players": v.players} for v in chosen
            ],
        }
        try:
            write_report(
                folder, settings, summary, records, worker_count(workers) if backend == "joblib" else 1
            )
        except OSError as exc:  # a full disk...
            why = exc.strerror or str(exc)
            raise UsageError(f"cannot write {out}: {why}", Location("--out"), code="IO-WRITE") from None
    from coh_core.sim.report import comparison_rows, text_table, variant_rows

    if as_json:
        outcome.printed = True
        click.echo(json.dumps({"settings": settings, **summary, "out": str(out)}, indent=2))
        return
    click.echo(text_table(*variant_rows(summary["variants"])))
    if summary["comparisons"]:
        click.echo()
        click.echo(text_table(*comparison_rows(summary["comparisons"])))
    click.echo(f"\nreport: {_shown_path(out / 'report.md')}")


# --- the web table -----------------------------------------------------------------------------

DEFAULT_WEB_DB = "coh-web.sqlite3"  # in the current directory


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="The port.")
@click.option(
    "--db",
    "db",
    type=_PathType(),
    default=DEFAULT_WEB_DB,
    show_default=True,
    help="The SQLite file the rooms are kept in (created when missing; a server started again on it"
    " goes on with every room).",
)
@click.option(
    "--max-rooms", type=click.IntRange(1), default=200, show_default=True, help="The rooms a server keeps."
)
@click.option(
    "--rate",
    type=click.IntRange(1),
    default=40,
    show_default=True,
    help="The messages a browser may send in 10 seconds (more are refused, WEB-RATE).",
)
@click.option(
    "--idle-hours",
    type=click.FloatRange(0, min_open=True),
    default=72.0,
    show_default=True,
    help="A room where no decision was taken for this long is removed (its links then open no table).",
)
@click.option(
    "--over-hours",
    type=click.FloatRange(0, min_open=True),
    default=24.0,
    show_default=True,
    help="A room whose game is over is removed this long after its last decision.",
)
@_expert_iterations_option
@_expert_seconds_option
def serve(
    host: str,
    port: int,
    db: Path,
    max_rooms: int,
    rate: int,
    idle_hours: float,
    over_hours: float,
    expert_iterations: int | None,
    expert_seconds: float | None,
) -> None:
    """Serve the web table (needs the extra web): `POST /rooms` makes a room of a shipped game, with a
    secret link per human seat, a spectator's link and bots at the other seats (random, heuristic
    or expert, whose budget --expert-iterations and --expert-seconds set); each link opens the
    table in a browser, in the language of its `?lang=`."""
    from coh_core.web import INSTALL_HINT, missing_libraries

    missing = missing_libraries()
    if missing:
        _fail_usage(UsageError(f"coh serve needs {', '.join(missing)}: {INSTALL_HINT}", code="WEB-EXTRA"))
    budget = _expert_budget(["expert"], expert_iterations, expert_seconds)
    import uvicorn

    from coh_core.web.app import HOUR, MAX_MESSAGE, Expiry, create_app

    click.echo(f"the web table on http://{host}:{port}/ (rooms kept in {_shown_path(db)})", err=True)
    expiry = Expiry(idle=idle_hours * HOUR, over=over_hours * HOUR)
    app = create_app(db, max_rooms, (rate, 10.0), expiry, budget=budget)
    # a frame far beyond any answer is refused by the WebSocket protocol itself
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=MAX_MESSAGE * 8)
