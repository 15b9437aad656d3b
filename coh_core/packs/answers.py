"""Every answer a pack's game can be given, enumerated from its declarations: the action space.

A game's answers are lists such as `["give", "red", "card", "torch"]`: a verb, then values. The
pack declares each kind of answer in its messages (`answers:`): its id (`give.card`, the value at
`key_at` naming its last part), its placeholders in order, and their `types`. A placeholder's
type gives the values it may take: the pack's colours for `player` and `colour`, the ids of the
pack's entities of a kind for that kind's type, the values of an enumeration the pack declares;
one of another type (a number, a mix) lists its values itself (`values:`). The engine's own
answers come first: `["pass"]`, which `may` and the timing windows offer, and `["choose", v]` of
the `choose` primitive, whose value may be any of the values above.

The space is the product of those values, answer by answer in declaration order: stable integer
ids for the same pack, whatever games are played. `check_answer_values` reports in `coh validate`
a placeholder whose values cannot be listed (`MSG-ANSWER-VALUES`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from coh_core.effects.checker import suggest
from coh_core.effects.registry import Declarations
from coh_core.errors import Problem
from coh_core.messages import GROUPS, declarations
from coh_core.packs.declarations import declarations_of, messages_of
from coh_core.packs.model import Pack

PASS_VERB = "pass"  # the engine's answer of a player who passes (`may`, the timing windows)
CHOOSE_VERB = "choose"  # the engine's answer to its `choose` primitive: one value of any type
SEAT_TYPES = ("player", "colour")  # types whose values are the pack's colours
VALUES_KEY = "values"  # what an answer declares for a placeholder of a type without a list of values


@dataclass(frozen=True)
class AnswerForm:
    """One kind of answer, as the action space enumerates it: its verb, and per value of the
    answer (in order), the values it may take (the key's one value at `key_at`)."""

    id: str
    verb: str
    values: tuple[tuple[Any, ...], ...]

    def actions(self) -> Iterator[tuple[Any, ...]]:
        """Every answer of this kind, in a fixed order."""
        for values in itertools.product(*self.values):
            yield (self.verb, *values)


def answer_forms(pack: Pack) -> list[AnswerForm]:
    """The kinds of answers of the pack's game, the engine's first, each with its values; a
    placeholder whose values cannot be listed (`check_answer_values`) is left out with its answer."""
    declared = declarations_of(pack)
    every = all_values(pack, declared)
    forms = [AnswerForm(PASS_VERB, PASS_VERB, ()), AnswerForm(CHOOSE_VERB, CHOOSE_VERB, (every,))]
    known = {PASS_VERB, CHOOSE_VERB}
    texts = messages_of(pack, declared).texts
    for message_id, spec in _answer_specs(pack):
        if message_id in known:
            continue  # (the pack's own `pass`: the engine's is the same answer)
        message = texts.get(GROUPS["answers"] + message_id)
        if message is None:
            continue
        listed = _mapping(spec.get(VALUES_KEY))
        domains: list[tuple[Any, ...]] = []
        for param in message.params:
            found = _declared_values(listed.get(param)) or type_values(
                pack, declared, message.types.get(param)
            )
            if found is None:
                break
            domains.append(found)
        else:
            key_at = spec.get("key_at")
            verb = message_id
            if isinstance(key_at, int) and "." in message_id:
                verb, key = message_id.rsplit(".", 1)
                domains.insert(key_at - 1, (key,))
            known.add(message_id)
            forms.append(AnswerForm(message_id, verb, tuple(domains)))
    return forms


def type_values(pack: Pack, declared: Declarations, type_name: str | None) -> tuple[Any, ...] | None:
    """The values of a type, in a fixed order (None: a type without a list of values)."""
    if type_name is None:
        return None
    if type_name in SEAT_TYPES:
        return tuple(pack.colours())
    enum = declared.types.get(type_name)
    if enum is not None:
        return tuple(enum.values)
    ids = sorted(
        entity.id
        for kind, written in pack.ref_types().items()
        if written == type_name
        for entity in pack.entities_of(kind)
    )
    return tuple(ids) if ids else None


def all_values(pack: Pack, declared: Declarations) -> tuple[Any, ...]:
    """Every value a type of the pack lists (colours, entities' ids, enumerations), each once: what
    the engine's `choose` may offer."""
    found: dict[Any, None] = dict.fromkeys(pack.colours())
    for type_name in sorted(set(pack.ref_types().values())):
        found.update(dict.fromkeys(type_values(pack, declared, type_name) or ()))
    for enum in declared.types.values():
        found.update(dict.fromkeys(enum.values))
    return tuple(found)


def _declared_values(listed: Any) -> tuple[Any, ...] | None:
    if not isinstance(listed, list) or not listed:
        return None
    return tuple(dict.fromkeys(v for v in listed if isinstance(v, str | int) and not isinstance(v, bool)))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _answer_specs(pack: Pack) -> Iterator[tuple[str, dict[str, Any]]]:
    if "messages" not in pack.sections:
        return
    for group, message_id, spec in declarations(pack.section("messages")):
        if group == "answers":
            yield message_id, spec


# -- the check ----------------------------------------------------------------------------------


def check_answer_values(pack: Pack) -> Iterator[Problem]:
    """Each placeholder of an answer has values the action space can list: those of its type, or
    its own `values` (which name placeholders of the answer)."""
    section = pack.sections.get("messages")
    if section is None:
        return
    declared = declarations_of(pack)
    for message_id, spec in _answer_specs(pack):
        path = (*section.path, "answers", message_id)
        if not section.doc.is_valid(path):
            continue
        params = list(spec.get("params") or {})
        types = _mapping(spec.get("types"))
        listed = _mapping(spec.get(VALUES_KEY))
        for name in listed:
            if name not in params:
                yield Problem(
                    "MSG-ANSWER-VALUES",
                    f"`values` lists `{name}`, which is not a placeholder of `{message_id}`"
                    + (suggest(str(name), params) or f"; its placeholders: {', '.join(params) or 'none'}"),
                    section.doc.location((*path, VALUES_KEY, name), key=True),
                )
        for name in params:
            if name in listed:
                continue
            written = types.get(name)
            if type_values(pack, declared, written if isinstance(written, str) else None) is None:
                of = f"its type `{written}` lists none" if written else "it has no type"
                yield Problem(
                    "MSG-ANSWER-VALUES",
                    f"`{message_id}`: the values of `{name}` cannot be listed ({of}): give it the type"
                    " of a kind of entities, an enumeration or `player`, or list them"
                    f" (`values: {{{name}: [...]}}`), so that every answer has an id in the action space",
                    section.doc.location((*path, "params", name), key=True),
                )
