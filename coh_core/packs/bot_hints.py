"""What a pack tells the shipped bots about its game (`bots:`), as data, the way general game
players read a game's heuristics from its description (Ludii's `metadata ai` heuristics):

- `evaluation`: a verb of the pack, a selector of one `player` that returns an `int`, asking
  nothing: how good the position is for that player, the higher the better. The bots read it for
  every seat: in a ranking the seat's value less the best other's, in a team's game the values of
  all seats added up (the team's), in a game of both the two added.
- `win`: what a won game is worth in the evaluation's units (a lost team game as much less); by
  default `DEFAULT_WIN`.
- `piece_value`: the field of the players' pieces' kind that holds a piece's worth (the tactic
  `cheapest_piece`, and the evaluation of a pack that declares none).
- `tactics`: which of the bots' tactics (`TACTICS`) answers each of the pack's questions, by the
  question's id (`vote`) or id and purpose (`vote.sharing`, as its texts are keyed); a question
  with none is answered by `lookahead`. A tactic may also be a verb of the pack, a selector that
  picks the answer itself (the pack's own strategy, written in its language): its parameters are
  taken by name, `player` the seat asked, `options` the values of the answers offered (a list),
  any other one of the question's own (`action`'s `survivor`), and it returns one of `options`.

`check_bots` reports a verb that is no such selector (`BOTS-EVALUATION`), a field the pieces do
not have (`BOTS-PIECE-VALUE`), a tactic or question unknown (`BOTS-TACTIC`), and a tactic verb
that asks, returns nothing or takes a parameter it cannot be given (`BOTS-TACTIC-VERB`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from coh_core.effects.checker import suggest
from coh_core.effects.registry import parse_param
from coh_core.errors import Location, Problem
from coh_core.packs.declarations import messages_of
from coh_core.packs.model import BOTS_SECTION, Pack

_NOT_NUMBERS = frozenset(
    {
        "bool",
        "string",
        "id",
        "name",
        "effect",
        "condition",
        "window",
        "event",
        "triggers",
        "trait_values",
        "record",
    }
)
DEFAULT_WIN = 10  # a won game's worth where the pack says nothing (a lost team game: as much less)
LOOKAHEAD = "lookahead"
TACTIC_PLAYER = "player"  # a tactic verb's parameter given the seat asked
TACTIC_OPTIONS = "options"  # a tactic verb's parameter given the answers' values
# The bots' tactics, by the name a pack gives them to its questions: what each answers. An
# answer's values are read in order: `[vote, red]`'s first value is the player `red`.
TACTICS: Mapping[str, str] = {
    LOOKAHEAD: "the answer whose outcome the pack's evaluation prefers (the default)",
    "random": "any legal answer, at random",
    "weighted_by_appeal": (
        "a place at random, each weighted by how good it looks once the others' likely choices are"
        " counted: its prize counters shared with the crowd, less the risk its threat counters make"
    ),
    "least_threatened": "the answer whose place (its second value) has the fewest threat counters",
    "most_endangered": "the answer whose piece (its first value) stands where threats most outnumber people",
    "relieve_at_risk": (
        "in a window at a place where its pieces are at risk: a play or power whose effect calls a"
        " relief verb, else once a turn a card it does not need given to the player with the most"
        " pieces there; elsewhere a pass"
    ),
    "aim": (
        "a choice of places: for a relief or a target, the most threatened of its own places, else"
        " the least threatened of the others'; a choice of players: another player"
    ),
    "against_others": "a vote for another player, at random, sparing those who gave it a gift this turn",
    "for_self": "the answer naming itself (its first value)",
    "another_player": "the first answer naming another player (its first value)",
    "cheapest_piece": "the answer naming its piece of least worth (`piece_value`)",
    "keep_prize": "the answer giving itself a prize counter's item (`[_, me, item]`), else the first",
    "take": "the first answer that is not a pass",
    "keep_relief": "the first answer naming a card whose effect calls no relief verb",
}


@dataclass(frozen=True)
class BotHints:
    """The `bots:` section of a pack, read (with its defaults)."""

    evaluation: str | None = None
    win: int = DEFAULT_WIN
    piece_value: str | None = None
    tactics: Mapping[str, str] = field(default_factory=dict)

    def tactic(self, question: str | None, purpose: Any = None) -> str:
        """The tactic for a question asked for a purpose (`lookahead` where none is declared)."""
        return self.tactics.get(self.key(question, purpose), LOOKAHEAD)

    def key(self, question: str | None, purpose: Any = None) -> str:
        """The key the tactic of a question asked for a purpose is named by (`vote.sharing`, else
        `vote`)."""
        if purpose is not None and f"{question}.{purpose}" in self.tactics:
            return f"{question}.{purpose}"
        return str(question)

    def is_verb(self, tactic: str) -> bool:
        """Whether a tactic is a verb of the pack (not one of the bots' own)."""
        return tactic not in TACTICS


def bot_hints(pack: Pack | None) -> BotHints:
    """The hints the pack gives bots (none for no pack, or a section the schema refused)."""
    section = pack.sections.get(BOTS_SECTION) if pack is not None else None
    if section is None or not section.doc.is_valid(section.path):
        return BotHints()
    data = section.data
    return BotHints(
        evaluation=str(data["evaluation"]) if data.get("evaluation") else None,
        win=int(data.get("win", DEFAULT_WIN)),
        piece_value=str(data["piece_value"]) if data.get("piece_value") else None,
        tactics={str(k): str(v) for k, v in (data.get("tactics") or {}).items()},
    )


def tactic_location(pack: Pack | None, key: str) -> Location | None:
    """Where the tactic of the question `key` is named (for what goes wrong when it is used)."""
    section = pack.sections.get(BOTS_SECTION) if pack is not None else None
    return None if section is None else section.doc.location((*section.path, "tactics", key))


def players_piece_kind(pack: Pack) -> str | None:
    """The kind of the pieces of role `players` (the pieces players own), if the pack has them."""
    for entry in (pack.section("components").get("pieces") or {}).values():
        if isinstance(entry, dict) and entry.get("role") == "players":
            return str(entry.get("of"))
    return None


# -- the checks -------------------------------------------------------------------------------


def check_bots(pack: Pack) -> Iterator[Problem]:
    """The evaluation is a selector of one player, the piece value a field, the tactics known."""
    section = pack.sections.get(BOTS_SECTION)
    if section is None or not section.doc.is_valid(section.path):
        return
    hints = bot_hints(pack)
    at = section.path
    if hints.evaluation is not None:
        fault = _evaluation_fault(pack, hints.evaluation)
        if fault is not None:
            yield Problem("BOTS-EVALUATION", fault, section.doc.location((*at, "evaluation")))
    if hints.piece_value is not None:
        fault = _piece_value_fault(pack, hints.piece_value)
        if fault is not None:
            yield Problem("BOTS-PIECE-VALUE", fault, section.doc.location((*at, "piece_value")))
    # (without its messages the pack's questions are unknown: `SECTION-MISSING` says why)
    questions = messages_of(pack).questions() if "messages" in pack.sections else None
    verbs = {verb.id: verb for verb in pack.entities_of("verb")}
    for key, tactic in hints.tactics.items():
        question = key.split(".", 1)[0]
        if tactic in verbs and tactic not in TACTICS:
            given = questions.get(key, questions.get(question, ())) if questions is not None else None
            fault = _tactic_verb_fault(verbs[tactic].data, tactic, given)
            if fault is not None:
                yield Problem("BOTS-TACTIC-VERB", fault, section.doc.location((*at, "tactics", key)))
        elif tactic not in TACTICS:
            yield Problem(
                "BOTS-TACTIC",
                f"`{tactic}` is neither one of the bots' tactics ({', '.join(TACTICS)}) nor a verb of"
                " the pack" + suggest(tactic, [*TACTICS, *verbs]),
                section.doc.location((*at, "tactics", key)),
            )
        if questions is not None and key not in questions:
            yield Problem(
                "BOTS-TACTIC",
                f"`{key}` is not a question the pack declares (`messages: decisions`)"
                + suggest(key, questions),
                section.doc.location((*at, "tactics", key), key=True),
            )


def _tactic_verb_fault(verb: Mapping[str, Any], name: str, given: tuple[str, ...] | None) -> str | None:
    """Why this verb cannot pick a question's answer for the bots (None: it can); `given`: the
    question's own parameters (None: unknown)."""
    if verb.get("asks") or not verb.get("returns"):
        return (
            f"`{name}` answers a question for the bots: it must return the answer it picks, without"
            " asking (" + ("it asks" if verb.get("asks") else "it returns nothing") + ")"
        )
    for param in verb.get("params") or {}:
        if param in (TACTIC_PLAYER, TACTIC_OPTIONS) or given is None or param in given:
            continue
        can = ", ".join([TACTIC_PLAYER, TACTIC_OPTIONS, *given])
        return f"`{name}` takes `{param}`, which the question does not give (a tactic verb may take {can})"
    return None


def _evaluation_fault(pack: Pack, name: str) -> str | None:
    """Why this verb cannot be the bots' evaluation (None: it can)."""
    verbs = {verb.id: verb for verb in pack.entities_of("verb")}
    verb = verbs.get(name)
    if verb is None:
        return f"`{name}` is not a verb of the pack" + suggest(name, verbs)
    params = [parse_param(str(k), str(v)) for k, v in (verb.data.get("params") or {}).items()]
    types = [param.type if param is not None else "?" for param in params]
    if types != ["player"] or verb.data.get("returns") != "int" or verb.data.get("asks"):
        return (
            f"`{name}` is the bots' evaluation, read for each player at any moment: it must take one"
            f" `player` and return an `int` without asking (it takes ({', '.join(types)}), returns"
            f" {verb.data.get('returns') or 'nothing'}" + (", asks" if verb.data.get("asks") else "") + ")"
        )
    return None


def _piece_value_fault(pack: Pack, name: str) -> str | None:
    """Why this field cannot hold the players' pieces' worth (None: it can)."""
    kind = players_piece_kind(pack)
    if kind is None:
        return f"`piece_value: {name}`, but the pack has no pieces of role `players`"
    declared = pack.section("kinds").get(kind)
    if not isinstance(declared, dict):
        return None  # (pieces of a kind the pack does not declare: `COMPONENT-PIECES`)
    fields = declared.get("fields") or {}
    if name not in fields:
        return f"`{name}` is not a field of the kind `{kind}` (the players' pieces)" + suggest(name, fields)
    kind_of = (
        str((fields[name] or {}).get("type", "")) if isinstance(fields[name], dict) else str(fields[name])
    )
    # (a type misspelt is the kind's declaration's problem, `KIND-FIELD`: only the field
    # language's own other types are refused here)
    if kind_of in _NOT_NUMBERS or kind_of.startswith(("list[", "map[")):
        return f"`{name}` is a field of type `{kind_of}`: a piece's worth is a number (`int` or `count`)"
    return None
