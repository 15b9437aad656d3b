"""The output folder of a simulation: games.jsonl, summary.json, report.md and its PNG plots."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib

from coh_core.sim import PLOTS

matplotlib.use("Agg")  # files only: no display, the same output on every machine

import matplotlib.pyplot as plt


def _label(summary: dict[str, Any]) -> str:
    return f"{summary['variant']} ({summary['players']}p)"


def _bars(
    ax: Any, labels: Sequence[str], series: Sequence[tuple[str, Sequence[dict[str, Any] | None]]]
) -> None:
    """Grouped bars of rates with their Wilson intervals as error bars."""
    width = 0.8 / max(1, len(series))
    for offset, (name, rates) in enumerate(series):
        xs = [i + offset * width for i in range(len(labels))]
        heights = [r["rate"] if r else 0.0 for r in rates]
        # max(0, ...): at a rate of 0 or 1 the interval's bound may differ from it by a rounding error
        below = [max(0.0, r["rate"] - r["low"]) if r else 0.0 for r in rates]
        above = [max(0.0, r["high"] - r["rate"]) if r else 0.0 for r in rates]
        ax.bar(xs, heights, width, yerr=[below, above], capsize=3, label=name)
    ax.set_xticks(
        [i + width * (len(series) - 1) / 2 for i in range(len(labels))], labels, rotation=30, ha="right"
    )
    ax.set_ylabel("win rate (Wilson 95%)")
    ax.legend()


def plot_seats(summaries: Sequence[dict[str, Any]], path: Path) -> None:
    """The win rate of each seat (of a team's result, the team's first)."""
    seats = _seats(summaries)
    team = any("team" in s for s in summaries)
    fig, ax = plt.subplots(figsize=(7, 4))
    series = [
        (
            _label(s),
            [
                *([s.get("team")] if team else []),
                *[s["seats"][i] if i < len(s["seats"]) else None for i in range(seats)],
            ],
        )
        for s in summaries
    ]
    _bars(ax, [*(["team"] if team else []), *[f"seat {i + 1}" for i in range(seats)]], series)
    ax.set_title("Win rate per seat" + (" and of the team" if team else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def plot_characters(summaries: Sequence[dict[str, Any]], path: Path) -> None:
    pieces = sorted({piece for s in summaries for piece in s["characters"]})
    fig, ax = plt.subplots(figsize=(max(7, len(pieces) * 0.6), 4))
    _bars(ax, pieces, [(_label(s), [s["characters"].get(p) for p in pieces]) for s in summaries])
    ax.set_title("Win rate of the player holding each character")
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def plot_lengths(summaries: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    for s in summaries:
        decisions = [
            r["decisions"] for r in records if (r["variant"], r["players"]) == (s["variant"], s["players"])
        ]
        ax.hist(decisions, bins=30, alpha=0.5, label=_label(s))
    ax.set_xlabel("decisions per game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def _pct(r: dict[str, Any]) -> str:
    return f"{r['rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]"


def _num(m: dict[str, Any]) -> str:
    return f"{m['mean']:.2f} [{m['low']:.2f}, {m['high']:.2f}]"


def _seats(summaries: Sequence[dict[str, Any]]) -> int:
    """How many seats have a win rate of their own in some variant (none of a team's result alone)."""
    return max(len(s["seats"]) for s in summaries)


def variant_rows(summaries: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """One row per variant: games, the team's win rate (of a team's result), win rate per seat
    and the mean score (of a ranking), and the other means (with their 95% intervals)."""
    seats = _seats(summaries)
    team = any("team" in s for s in summaries)
    head = [
        "variant",
        "games",
        *(["team wins"] if team else []),
        *[f"seat {i + 1} wins" for i in range(seats)],
        *(["mean score"] if seats else []),
        "survivors",
        "turns",
    ]
    rows = [
        [
            _label(s),
            str(s["games"]),
            *([_pct(s["team"]) if "team" in s else ""] if team else []),
            *[_pct(s["seats"][i]) if i < len(s["seats"]) else "" for i in range(seats)],
            *([_num(s["means"]["score"]) if s["seats"] else ""] if seats else []),
            _num(s["means"]["survivors"]),
            _num(s["means"]["turns"]),
        ]
        for s in summaries
    ]
    return head, rows


def comparison_rows(comparisons: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """One row per tested difference: the two values, the difference, p before and after Holm."""
    head = ["players", "a", "b", "metric", "a value", "b value", "b - a", "p", "p (Holm)", ""]
    rows = [
        [
            str(c["players"]),
            c["a"],
            c["b"],
            c["metric"],
            f"{c['value_a']:.3f}",
            f"{c['value_b']:.3f}",
            f"{c['difference']:+.3f}",
            f"{c['p']:.3g}",
            f"{c['p_holm']:.3g}",
            "*" if c["significant"] else "",
        ]
        for c in comparisons
    ]
    return head, rows


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(head, *rows, strict=True)]
    lines = [
        "  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)).rstrip()
        for line in [head, *rows]
    ]
    return "\n".join(lines)


def _average(rates: dict[str, dict[str, Any]]) -> float:
    """The win rate of all pieces together (every win over every piece dealt)."""
    dealt = sum(r["games"] for r in rates.values())
    return sum(r["wins"] for r in rates.values()) / dealt if dealt else 0.0


def standing_out(summary: dict[str, Any]) -> list[str]:
    """The pieces whose win rate's interval leaves out the average of all pieces of the variant."""
    rates = summary["characters"]
    average = _average(rates)
    return [p for p, r in sorted(rates.items()) if not r["low"] <= average <= r["high"]]


def _character_rows(summaries: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """A row per piece that stands out in some variant, then one row for all the others: the table
    stays short however many pieces the pack has (summary.json and the plot have every one)."""
    shown = sorted({p for s in summaries for p in standing_out(s)})
    head = ["character", *[_label(s) for s in summaries]]
    rows = [
        [p, *[_pct(s["characters"][p]) if p in s["characters"] else "" for s in summaries]] for p in shown
    ]
    others = []
    for s in summaries:
        rest = [r["rate"] for p, r in s["characters"].items() if p not in shown]
        others.append(f"{len(rest)}: {min(rest):.1%} to {max(rest):.1%}" if rest else "")
    if any(others):
        rows.append(["all the others", *others])
    rows.append(["average", *[f"{_average(s['characters']):.1%}" for s in summaries]])
    return head, rows


def write_report(
    out: Path,
    settings: dict[str, Any],
    summary: dict[str, Any],
    records: Sequence[dict[str, Any]],
    processes: int = 1,
) -> None:
    """games.jsonl, summary.json, the plots and report.md in `out` (created if needed).

    `processes`: how many this may use (the command's workers, idle once the games are over): on
    Linux up to that many plots are then drawn side by side, the others than this process's own
    in processes forked from it. The files are the same.
    """
    out.mkdir(parents=True, exist_ok=True)
    summaries = summary["variants"]
    drawings = [  # the longest first
        partial(plot_characters, summaries, out / PLOTS["characters"]),
        partial(plot_seats, summaries, out / PLOTS["seats"]),
        partial(plot_lengths, summaries, records, out / PLOTS["lengths"]),
    ]
    elsewhere = drawings[: processes - 1] if sys.platform == "linux" else []
    with _drawn_meanwhile(elsewhere):
        with (out / "games.jsonl").open("w", encoding="utf-8") as lines:
            for record in records:
                lines.write(json.dumps(record, sort_keys=True) + "\n")
        document = {"settings": settings, **summary}
        text = json.dumps(document, indent=2, sort_keys=True) + "\n"
        (out / "summary.json").write_text(text, encoding="utf-8")
        for draw in drawings[len(elsewhere) :]:
            draw()
        (out / "report.md").write_text(_markdown(settings, summary), encoding="utf-8")


@contextmanager
def _drawn_meanwhile(drawings: Sequence[Callable[[], None]]) -> Iterator[None]:
    """Each drawing in a process of its own, forked from this one, while this one goes on; at the
    end each is waited for, and drawn here again if its process failed (which then fails here,
    and is reported, as it would have without the fork), or here at once if none could start.
    If this one fails or is interrupted meanwhile, they are ended at once."""
    started: list[tuple[int, Callable[[], None]]] = []
    here: list[Callable[[], None]] = []
    for draw in drawings:
        try:
            started.append((_forked(draw), draw))
        except OSError:  # no process to spare (a limit on them, memory)
            here.append(draw)
    try:
        yield
    except BaseException:
        for pid, _ in started:  # their files are not wanted: nothing is left writing into the folder
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        raise
    finally:
        failed = [draw for pid, draw in started if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])]
    for draw in [*here, *failed]:
        draw()


def _forked(draw: Callable[[], None]) -> int:
    """The id of a process forked from this one that draws, then ends at once (no exit handlers,
    nothing this process had buffered written twice)."""
    pid = os.fork()
    if pid == 0:
        try:
            draw()
        except BaseException:
            os._exit(1)
        os._exit(0)
    return pid


def _markdown(settings: dict[str, Any], summary: dict[str, Any]) -> str:
    summaries = summary["variants"]
    parts = [
        "# Simulation report",
        "",
        f"{settings['games']} games per variant, bots: {', '.join(settings['bots'])}, seed {settings['seed']}"
        " (the same game seeds in every variant). Intervals are 95%: Wilson for rates, t for means.",
        "",
        "## Variants",
        "",
        markdown_table(*variant_rows(summaries)),
        "",
        f"![Win rate per seat]({PLOTS['seats']})",
        "",
        "## Characters",
        "",
        "Win rate of the player who held each character (every winner counts when several tie): those"
        " whose 95% interval leaves out the average of all characters, then the range of the others"
        " (every one is in summary.json and the plot below).",
        "",
        markdown_table(*_character_rows(summaries)),
        "",
        f"![Win rate per character]({PLOTS['characters']})",
        "",
        "## Game length",
        "",
        f"![Game length]({PLOTS['lengths']})",
        "",
    ]
    if summary["comparisons"]:
        parts += [
            "## Differences between variants",
            "",
            "Two-proportion z-tests for rates, Welch t-tests for means; p-values Holm-corrected together;"
            " `*` marks a difference significant at 5% after correction.",
            "",
            markdown_table(*comparison_rows(summary["comparisons"])),
            "",
        ]
    return "\n".join(parts)
