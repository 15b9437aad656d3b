"""The numbers of `coh simulate`: Wilson intervals, t intervals, the two-proportion z-test, Welch's
t-test and Holm's correction, pinned on fixed inputs to the figures statsmodels gave (its
`proportion_confint(method="wilson")`, `DescrStatsW.tconfint_mean`, `proportions_ztest`,
`ttest_ind(usevar="unequal")` and `multipletests(method="holm")`, which the extra sim used before
SciPy): the tables it prints stay the same (skipped without the extra)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("scipy", reason="coh simulate's extra is not installed: pip install '.[sim]'")

from coh_core.sim.stats import holm, mean, rate, summarize, two_means, two_proportions


def _same(found: float, pinned: float) -> bool:
    return found == pytest.approx(pinned, rel=1e-9, abs=1e-12)


# (wins, games, low, high)
RATES = [
    (0, 1, 0.0, 0.7934506856227627),
    (1, 1, 0.2065493143772374, 1.0),
    (0, 10, 0.0, 0.27753279986288926),
    (10, 10, 0.7224672001371106, 1.0),
    (5, 10, 0.23659309051256394, 0.7634069094874361),
    (3, 7, 0.15821985525146964, 0.7495416354723428),
    (1, 1000, 0.00017654637062607765, 0.005642558597957937),
    (999, 1000, 0.9943574414020421, 0.9998234536293739),
    (123, 400, 0.2642873977313039, 0.3543748355874003),
    (2, 3, 0.2076596008020477, 0.9385080552796037),
]


@pytest.mark.parametrize(("wins", "games", "low", "high"), RATES)
def test_a_rate_has_its_wilson_interval(wins: int, games: int, low: float, high: float) -> None:
    found = rate(wins, games)
    assert (found["wins"], found["games"], found["rate"]) == (wins, games, wins / games)
    assert _same(found["low"], low) and _same(found["high"], high)


# (values, mean, low, high): a sample without spread has its mean as its interval
MEANS = [
    ([5.0], 5.0, 5.0, 5.0),
    ([2.0, 2.0, 2.0], 2.0, 2.0, 2.0),
    ([0.1, 0.1, 0.1], 0.10000000000000002, 0.09999999999999998, 0.10000000000000006),
    ([1.0, 2.0, 3.0, 4.0], 2.5, 0.44573974323947896, 4.5542602567605215),
    ([0.5, 1.25, 7.0, 3.5, 3.5], 3.15, 0.0026817864255970214, 6.297318213574403),
    ([10.0, 11.0], 10.5, 4.146897631912653, 16.85310236808735),
    ([1e6, 1e6 + 1, 1e6 + 3], 1000001.3333333334, 999997.5387502997, 1000005.127916367),
    ([-2.0, 0.0, 2.0, 9.5, 4.25, 4.25, 1.0], 2.7142857142857144, -0.7421218171487682, 6.170693245720197),
]


@pytest.mark.parametrize(("values", "average", "low", "high"), MEANS)
def test_a_mean_has_its_t_interval(values: list[float], average: float, low: float, high: float) -> None:
    found = mean(values)
    assert found["n"] == len(values)
    assert _same(found["mean"], average) and _same(found["low"], low) and _same(found["high"], high)


# ((wins, games) of one variant, of the other, the two-sided p-value)
PROPORTIONS = [
    ((50, 100), (80, 100), 8.687711677000014e-06),
    ((0, 10), (3, 10), 0.060289173990602164),
    ((5, 10), (5, 10), 1.0),
    ((1, 30), (29, 30), 4.845295928589443e-13),
    ((12, 40), (30, 70), 0.1818165278145295),
    ((0, 1), (1, 1), 0.15729920705028516),
    ((0, 5), (0, 7), 1.0),  # every game lost on both sides: nothing can differ
    ((4, 4), (9, 9), 1.0),  # every game won
]


@pytest.mark.parametrize(("a", "b", "p_value"), PROPORTIONS)
def test_two_rates_are_compared_by_the_two_proportion_z_test(
    a: tuple[int, int], b: tuple[int, int], p_value: float
) -> None:
    found = two_proportions({"wins": a[0], "games": a[1]}, {"wins": b[0], "games": b[1]})
    assert _same(found, p_value)


# (one sample, the other, the two-sided p-value)
TWO_MEANS = [
    ([1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], 0.14429304308394378),
    ([0.5, 1.25, 7.0, 3.5], [8.0, 9.5, 7.25, 12.0, 10.0], 0.01401034665329068),
    ([3.0, 3.0, 3.0], [1.0, 2.0, 9.0], 0.7294991095997703),  # one side without spread
    ([10.0, 11.0, 10.0, 11.0], [10.0, 11.0, 10.0, 11.0], 1.0),
    ([4.0, 4.0], [4.0, 4.0, 4.0], 1.0),  # one value everywhere
    ([4.0, 4.0], [5.0, 5.0], 1.0),  # no spread on either side: the test is undefined
    ([5.0], [1.0, 2.0, 3.0], 1.0),  # a sample of one: likewise
    ([5.0], [6.0], 1.0),
]


@pytest.mark.parametrize(("a", "b", "p_value"), TWO_MEANS)
def test_two_means_are_compared_by_welchs_t_test(a: list[float], b: list[float], p_value: float) -> None:
    assert _same(two_means(a, b), p_value)


# (p-values, Holm-corrected, significant at 5%)
HOLM = [
    ([0.01], [0.01], [True]),
    ([0.04, 0.01, 0.03], [0.06, 0.03, 0.06], [False, True, False]),
    ([0.01, 0.01, 0.2], [0.03, 0.03, 0.2], [True, True, False]),
    ([0.5, 0.001, 0.0125, 0.02, 0.3], [0.6, 0.005, 0.05, 0.06, 0.6], [False, True, True, False, False]),
    ([1.0, 1.0], [1.0, 1.0], [False, False]),
    ([0.0125, 0.025], [0.025, 0.025], [True, True]),
    (
        [0.6, 0.3, 0.0001, 0.049, 0.01, 0.02],
        [0.6, 0.6, 0.0006000000000000001, 0.14700000000000002, 0.05, 0.08],
        [False, False, True, False, True, False],
    ),
    # the step-down stops at the first test it keeps: 0.04 alone would pass, after 0.02 it does not
    ([0.02, 0.03, 0.04], [0.06, 0.06, 0.06], [False, False, False]),
    ([0.05 / 3, 0.3, 0.9], [0.05, 0.6, 0.9], [True, False, False]),  # on the boundary: significant
    ([0.025, 0.025, 0.05], [0.07500000000000001] * 3, [False, False, False]),
    ([3e-12, 0.7, 0.0004], [9.000000000000001e-12, 0.7, 0.0008], [True, False, True]),
]


@pytest.mark.parametrize(("p_values", "corrected", "significant"), HOLM)
def test_p_values_are_holm_corrected_together(
    p_values: list[float], corrected: list[float], significant: list[bool]
) -> None:
    found, rejected = holm(p_values)
    assert all(_same(f, c) for f, c in zip(found, corrected, strict=True))
    assert rejected == significant


def _games(name: str, count: int, first_every: int, second_in_ten: int, longer: int) -> list[dict[str, Any]]:
    """`count` games of two seats and two characters whose outcomes follow the game's number: seat 1
    wins one game in `first_every`, seat 2 `second_in_ten` in ten; `longer` adds to turns and
    decisions."""
    found = []
    for index in range(count):
        first, second = index % first_every == 0, index % 10 < second_in_ten
        found.append(
            {
                "variant": name,
                "players": 2,
                "seats": ["a", "b"],
                "winners": [seat for seat, won in (("a", first), ("b", second)) if won],
                "characters": {"p": {"owner": "ab"[index % 2]}, "q": {"owner": "ba"[index % 2]}},
                "result": "ranking",
                "scores": {"a": index % 7, "b": (index * 5) % 4 + second},
                "tie_breaks": {},
                "survivors": {"a": index % 2, "b": int(first)},
                "turns": 4 + (index % 3 == 0) + longer * (index % 2),
                "decisions": 20 + (index * 11) % 9 + longer,
            }
        )
    return found


# (variant a, variant b, metric, p, p corrected with the 23 others, significant)
COMPARISONS = [
    ("x", "y", "seat 1 win rate", 0.023342202012890816, 0.32679082818047145, False),
    ("x", "y", "seat 2 win rate", 5.227865783267447e-05, 0.0010455731566534894, True),
    ("x", "y", "p win rate", 3.7186495758786995e-09, 8.552894024521009e-08, True),
    ("x", "y", "q win rate", 0.6455818712448089, 1.0, False),
    ("x", "y", "mean score", 0.39341197755515384, 1.0, False),
    ("x", "y", "mean survivors", 0.02450209555120882, 0.32679082818047145, False),
    ("x", "y", "mean turns", 6.96193630021814e-08, 1.5316259860479909e-06, True),
    ("x", "y", "mean decisions", 0.010579823464840784, 0.16927717543745255, False),
    ("x", "z", "seat 1 win rate", 0.07479137758694426, 0.8974965310433312, False),
    ("x", "z", "seat 2 win rate", 1.0, 1.0, False),
    ("x", "z", "p win rate", 0.39844555266168324, 1.0, False),
    ("x", "z", "q win rate", 0.39844555266168324, 1.0, False),
    ("x", "z", "mean score", 0.9108557017557432, 1.0, False),
    ("x", "z", "mean survivors", 0.23057280030317948, 1.0, False),
    ("x", "z", "mean turns", 1.0, 1.0, False),
    ("x", "z", "mean decisions", 0.9089556993830777, 1.0, False),
    ("y", "z", "seat 1 win rate", 0.00020858502626975098, 0.003963115499125269, True),
    ("y", "z", "seat 2 win rate", 0.0002653363948209617, 0.0047760551067773105, True),
    ("y", "z", "p win rate", 9.141298408246598e-10, 2.1939116179791835e-08, True),
    ("y", "z", "q win rate", 0.21129954733371037, 1.0, False),
    ("y", "z", "mean score", 0.3842541984607724, 1.0, False),
    ("y", "z", "mean survivors", 0.0006554724992173125, 0.011143032486694312, True),
    ("y", "z", "mean turns", 5.210775006456485e-07, 1.0942627513558618e-05, True),
    ("y", "z", "mean decisions", 0.01757272466008679, 0.2635908699013018, False),
]


def test_a_simulation_tests_and_corrects_every_difference_as_before() -> None:
    records = _games("x", 90, 3, 4, 0) + _games("y", 90, 2, 7, 1) + _games("z", 60, 5, 4, 0)
    rows = summarize(records, [("x", 2), ("y", 2), ("z", 2)])["comparisons"]
    assert [(r["a"], r["b"], r["metric"]) for r in rows] == [pinned[:3] for pinned in COMPARISONS]
    for row, (*_, p_value, p_holm, significant) in zip(rows, COMPARISONS, strict=True):
        assert _same(row["p"], p_value) and _same(row["p_holm"], p_holm), row
        assert row["significant"] is significant
