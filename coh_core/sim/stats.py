"""The statistics of a simulation: rates with Wilson intervals, means with t intervals, and
tests of every difference between variants with Holm's correction. SciPy's functions where it has
them; the pooled two-proportion z-test and Holm's step-down, which it has not, from its normal
distribution and in a few lines."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest, norm, sem, ttest_ind
from scipy.stats import t as t_distribution

from coh_core.packs.results import BOTH, TEAM

ALPHA = 0.05
MEANS = ("score", "survivors", "turns", "decisions")


def rate(successes: int, trials: int) -> dict[str, Any]:
    """A proportion with its Wilson 95% interval."""
    low, high = binomtest(successes, trials).proportion_ci(confidence_level=1 - ALPHA, method="wilson")
    return {
        "wins": successes,
        "games": trials,
        "rate": successes / trials,
        "low": float(low),
        "high": float(high),
    }


def mean(values: Sequence[float]) -> dict[str, Any]:
    """A mean with its 95% t interval (the mean itself when every value is the same)."""
    # Summed as a product with ones, as statsmodels summed it: a mean of small fractions (2.155)
    # often lies on a rounding boundary of the printed figures, where the sum's last bit decides.
    average = float(np.dot(values, np.ones(len(values)))) / len(values)
    if len(set(values)) == 1:  # no spread: the t interval is undefined, the mean is exact
        return {"mean": average, "low": average, "high": average, "n": len(values)}
    low, high = t_distribution.interval(1 - ALPHA, len(values) - 1, loc=average, scale=sem(values))
    return {"mean": average, "low": float(low), "high": float(high), "n": len(values)}


def _per_seat(records: Sequence[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """The win rate of each seat, where the players are ranked (none where they only win or lose
    as a team: every seat has the team's)."""
    if records and not _ranked(records):
        return []
    wins = [sum(1 for r in records if r["seats"][seat] in r["winners"]) for seat in range(players)]
    return [rate(won, len(records)) for won in wins]


def _ranked(records: Sequence[dict[str, Any]]) -> bool:
    """Whether the games rank their players (all but those of a team's result alone)."""
    return any(r.get("result") != TEAM for r in records)


def _team(records: Sequence[dict[str, Any]]) -> bool:
    """Whether the games have a team's result (`won`: their pack declares one)."""
    return any(r.get("result") in (TEAM, BOTH) for r in records)


def _team_rate(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """How often the team won, with its interval (None: the games have no team result)."""
    if not _team(records):
        return None
    return rate(sum(1 for r in records if r.get("won")), len(records))


def _per_character(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    dealt: dict[str, int] = {}
    won: dict[str, int] = {}
    for record in records:
        for piece, held in record["characters"].items():
            dealt[piece] = dealt.get(piece, 0) + 1
            won[piece] = won.get(piece, 0) + (held["owner"] in record["winners"])
    return {piece: rate(won[piece], dealt[piece]) for piece in sorted(dealt)}


def _samples(records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Per game: the mean score of a seat, its pieces alive at the end (`survivors`), turns and
    decisions."""
    return {
        "score": [sum(r["scores"].values()) / len(r["seats"]) for r in records],
        "survivors": [sum(r["survivors"].values()) / len(r["seats"]) for r in records],
        "turns": [float(r["turns"]) for r in records],
        "decisions": [float(r["decisions"]) for r in records],
    }


def summarize_variant(records: Sequence[dict[str, Any]], name: str, players: int) -> dict[str, Any]:
    """Everything measured of one variant's games: of a team's result, the team's win rate; of a
    ranking, each seat's (a game of both kinds has both)."""
    samples = _samples(records)
    summary = {
        "variant": name,
        "players": players,
        "games": len(records),
        "seats": _per_seat(records, players),
        "characters": _per_character(records),
        "means": {metric: mean(samples[metric]) for metric in MEANS},
        "samples": samples,
    }
    team = _team_rate(records)
    if team is not None:
        summary["team"] = team
    return summary


def two_proportions(a: dict[str, Any], b: dict[str, Any]) -> float:
    """The two-sided p-value of the two-proportion z-test of two rates (pooled variance)."""
    wins, games = a["wins"] + b["wins"], a["games"] + b["games"]
    if wins in (0, games):  # every game the same outcome: nothing can differ
        return 1.0
    pooled = wins / games
    spread = math.sqrt(pooled * (1 - pooled) * (1 / a["games"] + 1 / b["games"]))
    z = (a["wins"] / a["games"] - b["wins"] / b["games"]) / spread
    return float(2 * norm.sf(abs(z)))


def two_means(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sided p-value of Welch's t-test of two samples (1 where it is undefined)."""
    if len(set(a)) == 1 and len(set(b)) == 1:  # no spread on either side: the test is undefined
        return 1.0
    with warnings.catch_warnings():  # one side without spread: Welch's test still applies
        warnings.simplefilter("ignore", RuntimeWarning)
        p_value = float(ttest_ind(list(a), list(b), equal_var=False).pvalue)
    return 1.0 if math.isnan(p_value) else p_value


def holm(p_values: Sequence[float]) -> tuple[list[float], list[bool]]:
    """Holm's step-down correction at ALPHA: each p-value corrected, and whether it is significant.

    The k-th smallest of m p-values is multiplied by m - k + 1 (and by no less than those before
    it); the tests are rejected in that order until the first whose p-value exceeds ALPHA / (m - k
    + 1): that one and all after it stand. Compared as p <= ALPHA / (m - k + 1), as statsmodels'
    `multipletests(method="holm")` does, so that a p-value on the boundary is judged the same."""
    order = sorted(range(len(p_values)), key=lambda index: p_values[index])
    corrected, significant = [0.0] * len(p_values), [False] * len(p_values)
    highest, rejecting = 0.0, True
    for rank, index in enumerate(order):
        left = len(p_values) - rank  # the tests not yet rejected, this one among them
        highest = max(highest, min(1.0, p_values[index] * left))
        rejecting = rejecting and p_values[index] <= ALPHA / left
        corrected[index], significant[index] = highest, rejecting
    return corrected, significant


def _tests(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every difference between two variants at the same table size, before correction."""
    found = []
    if "team" in a and "team" in b:
        found.append(
            _row("team win rate", a["team"]["rate"], b["team"]["rate"], two_proportions(a["team"], b["team"]))
        )
    # (a variant of a team's result alone has no seat of its own: nothing to compare with)
    for seat, (left, right) in enumerate(zip(a["seats"], b["seats"], strict=False), start=1):
        found.append(_row(f"seat {seat} win rate", left["rate"], right["rate"], two_proportions(left, right)))
    for piece in sorted(set(a["characters"]) & set(b["characters"])):
        left, right = a["characters"][piece], b["characters"][piece]
        found.append(_row(f"{piece} win rate", left["rate"], right["rate"], two_proportions(left, right)))
    for metric in MEANS:
        if metric == "score" and not (a["seats"] and b["seats"]):
            continue  # a team's result alone has no scores
        p_value = two_means(a["samples"][metric], b["samples"][metric])
        found.append(_row(f"mean {metric}", a["means"][metric]["mean"], b["means"][metric]["mean"], p_value))
    for row in found:
        row.update({"a": a["variant"], "b": b["variant"], "players": a["players"]})
    return found


def _row(metric: str, left: float, right: float, p_value: float) -> dict[str, Any]:
    return {"metric": metric, "value_a": left, "value_b": right, "difference": right - left, "p": p_value}


def compare(summaries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pair of variants at the same table size, every metric tested, Holm-corrected together."""
    rows = [
        row
        for a, b in itertools.combinations(summaries, 2)
        if a["players"] == b["players"]
        for row in _tests(a, b)
    ]
    if rows:
        corrected, significant = holm([r["p"] for r in rows])
        for row, p_holm, rejected in zip(rows, corrected, significant, strict=True):
            row.update({"p_holm": p_holm, "significant": rejected})
    return rows


def summarize(records: Sequence[dict[str, Any]], variants: Sequence[tuple[str, int]]) -> dict[str, Any]:
    """The summary of a whole simulation (summary.json, without the per-game samples)."""
    summaries = [
        summarize_variant([r for r in records if (r["variant"], r["players"]) == key], *key)
        for key in variants
    ]
    comparisons = compare(summaries)
    for summary in summaries:
        del summary["samples"]
    return {"variants": summaries, "comparisons": comparisons}
