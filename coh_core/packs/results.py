"""What a game comes to, as its pack declares it (`result:`): a ranking of the players, a team's
win or loss, or both; a ranking's tie-breaks, in order.

`result_of` reads the declaration for the engine, the scoreboard, records, scenarios, `coh
simulate` and the bots; `check_result` reports what is wrong with it (`RESULT-TIE-BREAKS`) and
with the calls of the result primitives in the pack's effects: a primitive of a result the pack
does not declare (`RESULT-KIND`), a number of tie-break values other than the declaration's
(`RESULT-TIE-BREAKS`, where the effect's text lists them), and a part of the declared result that
no effect sets (`RESULT-UNSET`). The engine checks the same as a game is played.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coh_core.effects import ast
from coh_core.errors import Problem
from coh_core.messages import log_key
from coh_core.packs.model import RESULT_SECTION, CompiledEffect, Entity, Pack, Section

RANKING, TEAM, BOTH = "ranking", "team", "both"
KINDS = (RANKING, TEAM, BOTH)
# The primitives that set each part of a result (coh_core.effects.registry), and the parameter
# that takes a ranking's tie-break values, with its position among the arguments.
RANKING_VERB, TEAM_VERB = "set_ranking", "set_team_result"
TIE_BREAKS_PARAM, TIE_BREAKS_AT = "tie_breaks", 2


@dataclass(frozen=True)
class TieBreak:
    """One tie-break of a ranking: its id (its name is the text `tie_break.<id>.name`)."""

    id: str
    doc: str

    @property
    def text_key(self) -> str:
        return tie_break_key(self.id)


@dataclass(frozen=True)
class ResultSpec:
    """The result a pack declares: its kind, and the tie-breaks of its ranking in order."""

    kind: str
    tie_breaks: tuple[TieBreak, ...] = ()

    @property
    def ranked(self) -> bool:
        """The players are ranked (`ranking` or `both`)."""
        return self.kind in (RANKING, BOTH)

    @property
    def team(self) -> bool:
        """The players win or lose together (`team` or `both`)."""
        return self.kind in (TEAM, BOTH)

    def missing(self, result: Mapping[str, Any] | None) -> list[str]:
        """The primitives the game has not called yet for this result (a game over without them
        has no complete result)."""
        found = result or {}
        return [
            verb
            for verb, needed, key in ((RANKING_VERB, self.ranked, "scores"), (TEAM_VERB, self.team, "won"))
            if needed and key not in found
        ]

    def keys(self) -> tuple[str, ...]:
        """The entries of the game's result (`state["result"]`) of this kind."""
        return (
            *(("scores", "tie_breaks", "winners") if self.ranked else ()),
            *(("won",) if self.team else ()),
        )


def tie_break_key(ident: str) -> str:
    """The text key of a tie-break's name."""
    return f"tie_break.{ident}.name"


SCORE_PART = "part"  # a verb marked `scoreboard: part` is a part of the score
SCORE_PART_TEXTS = "scoring"  # a part's name on the scoreboard is its text `log.scoring.<verb>`


def score_part_key(ident: str) -> str:
    """The text key of the name the scoreboard gives a part of the score (a verb's id)."""
    return log_key(f"{SCORE_PART_TEXTS}.{ident}")


def score_part_verbs(pack: Pack) -> list[Entity]:
    """The pack's verbs that are parts of the score (`scoreboard: part`), in declaration order."""
    return [verb for verb in pack.entities_of("verb") if verb.data.get("scoreboard") == SCORE_PART]


def result_of(pack: Pack) -> ResultSpec | None:
    """The result the pack declares (None: it declares none, and its games set none).

    A declaration the schema refused is taken as none (its problems are reported there)."""
    section = pack.sections.get(RESULT_SECTION)
    if section is None or not section.doc.is_valid(section.path):
        return None
    data = section.data
    kind = data.get("kind")
    if kind not in KINDS:
        return None
    breaks = data.get("tie_breaks") or []
    return ResultSpec(
        str(kind),
        tuple(TieBreak(str(b["id"]), str(b["doc"])) for b in breaks if isinstance(b, dict)),
    )


# -- the checks -------------------------------------------------------------------------------


def check_result(pack: Pack) -> Iterator[Problem]:
    """The declaration holds together, and the effects call the primitives of its kind only."""
    declared = result_of(pack)
    section = pack.sections.get(RESULT_SECTION)
    if declared is not None and section is not None:
        yield from _check_declaration(declared, section)
    if section is not None and declared is None:
        return  # refused by the schema: what the effects set cannot be judged
    called: set[str] = set()
    for effect in pack.effects:
        for call in ast.calls(effect.tree):
            if call.name in (RANKING_VERB, TEAM_VERB):
                called.add(call.name)
                yield from _check_call(effect, call, declared)
    if declared is None or section is None:
        return
    missing = [verb for verb in declared.missing({}) if verb not in called]
    if missing:
        yield Problem(
            "RESULT-UNSET",
            f"the pack declares a `{declared.kind}` result, but no effect of it calls"
            f" {' or '.join(f'`{verb}`' for verb in missing)}: its games would end without it",
            section.doc.location((*section.path, "kind")),
        )


def _check_declaration(declared: ResultSpec, section: Section) -> Iterator[Problem]:
    """A team has no ranking to break ties in, and no tie-break is declared twice."""
    if declared.tie_breaks and not declared.ranked:
        yield Problem(
            "RESULT-TIE-BREAKS",
            f"a `{declared.kind}` result ranks nobody: tie-breaks need `kind: ranking` or `kind: both`",
            section.doc.location((*section.path, "tie_breaks"), key=True),
        )
    seen: set[str] = set()
    for index, tie_break in enumerate(declared.tie_breaks):
        if tie_break.id in seen:
            yield Problem(
                "RESULT-TIE-BREAKS",
                f"the tie-break `{tie_break.id}` is declared twice",
                section.doc.location((*section.path, "tie_breaks", index, "id")),
            )
        seen.add(tie_break.id)


def _check_call(effect: CompiledEffect, call: ast.Call, declared: ResultSpec | None) -> Iterator[Problem]:
    where = effect.slot.doc.offset_in_scalar(effect.slot.path, call.name_span.start)
    wrong = result_kind_fault(call.name, declared)
    if wrong is not None:
        yield Problem("RESULT-KIND", wrong, where)
        return
    if call.name == RANKING_VERB and declared is not None:
        given = _tie_break_values(call.args)
        if given is not None and len(given) != len(declared.tie_breaks):
            yield Problem("RESULT-TIE-BREAKS", tie_breaks_fault(len(given), declared), where)


def _tie_break_values(args: Sequence[ast.Arg]) -> tuple[ast.Expr, ...] | None:
    """The tie-break values a call gives, where its text lists them (none given: the default,
    no value); None where they are worked out as the game goes."""
    positional = [arg for arg in args if arg.keyword is None]
    named = [arg for arg in args if arg.keyword == TIE_BREAKS_PARAM]
    found = named[0] if named else positional[TIE_BREAKS_AT] if len(positional) > TIE_BREAKS_AT else None
    if found is None:
        return ()
    return found.value.items if isinstance(found.value, ast.ListLit) else None


def result_kind_fault(verb: str, declared: ResultSpec | None) -> str | None:
    """Why the pack may not call this result primitive (None: it may)."""
    if declared is None:
        return f"`{verb}` sets the game's result, but the pack declares none (a top-level `result:`)"
    declares = f"the pack declares a `{declared.kind}` result"
    if verb == RANKING_VERB and not declared.ranked:
        return f"`{verb}` ranks the players, but {declares} (`{TEAM_VERB}` sets it)"
    if verb == TEAM_VERB and not declared.team:
        return f"`{verb}` sets a team's result, but {declares} (`{RANKING_VERB}` sets it)"
    return None


def tie_breaks_fault(given: int, declared: ResultSpec) -> str:
    """Why a ranking with `given` tie-break values does not fit the declaration."""
    names = ", ".join(f"`{t.id}`" for t in declared.tie_breaks) or "none"
    return (
        f"{given} tie-break value{'s' if given != 1 else ''} for the {len(declared.tie_breaks)} the pack"
        f" declares ({names}), in their order"
    )


def tie_break_texts(pack: Pack) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """The text key of each declared tie-break's name, with where the tie-break is declared."""
    declared = result_of(pack)
    for index, tie_break in enumerate(declared.tie_breaks if declared is not None else ()):
        yield tie_break.text_key, (RESULT_SECTION, "tie_breaks", index, "id")
