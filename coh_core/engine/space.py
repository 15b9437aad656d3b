"""The action space of a ruleset: every answer its games can be given, with a stable integer id.

Enumerated from the pack's declarations (`coh_core.packs.answers`), not discovered by play: the
same pack gives the same ids in every game and every process. Reinforcement-learning libraries
want a fixed discrete space and a mask of the legal ids; `ActionSpace` gives both.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from coh_core.engine.runtime import Action, EngineError
from coh_core.packs.answers import AnswerForm, answer_forms

if TYPE_CHECKING:
    from coh_core.engine.rules import Rules

SPACE_KEY = "action_space"  # where a ruleset keeps its space once worked out (`Rules.derived`)


class ActionSpace:
    """The numbered answers of one ruleset: `id_of`, `action`, `ids` and `mask`."""

    __slots__ = ("_ids", "actions", "forms")

    def __init__(self, forms: Sequence[AnswerForm]):
        self.forms = tuple(forms)
        actions: list[Action] = []
        for form in self.forms:
            actions.extend(form.actions())
        self.actions: tuple[Action, ...] = tuple(
            dict.fromkeys(actions)
        )  # (an answer once, if two forms meet)
        self._ids: dict[Action, int] = {action: i for i, action in enumerate(self.actions)}

    def __len__(self) -> int:
        return len(self.actions)

    def id_of(self, action: Sequence[Any]) -> int:
        """The id of an answer (`SPACE-UNKNOWN` for one the pack does not declare)."""
        key = action if type(action) is tuple else tuple(action)
        found = self._ids.get(key)
        if found is None:
            raise EngineError(
                "SPACE-UNKNOWN",
                f"{list(key)} is no answer the pack declares: declare its kind under `messages:"
                " answers:` with the types (or `values`) of its placeholders",
            )
        return found

    def action(self, ident: Any) -> Action:
        """The answer of an id: an integer (numpy's too) from 0 to the space's size less one
        (`SPACE-ID` for anything else; a bool is no id)."""
        try:
            number = -1 if isinstance(ident, bool) else operator.index(ident)
        except TypeError:
            number = -1
        if not 0 <= number < len(self.actions):
            raise EngineError(
                "SPACE-ID", f"{ident!r} is no action id: the ids run from 0 to {len(self.actions) - 1}"
            )
        return self.actions[number]

    def ids(self, actions: Iterable[Sequence[Any]]) -> list[int]:
        """The ids of answers, in their order."""
        given = actions if type(actions) is list else list(actions)
        try:  # (answers as the engine offers them: tuples it declares, looked up all at once)
            return list(map(self._ids.__getitem__, given))
        except (KeyError, TypeError):  # (an answer given as a list, or one the pack does not declare)
            return [self.id_of(action) for action in given]

    def mask(self, actions: Iterable[Sequence[Any]]) -> bytearray:
        """One byte per id of the space: 1 for the answers given, 0 for the others."""
        found = bytearray(len(self.actions))
        for ident in self.ids(actions):
            found[ident] = 1
        return found

    def describe(self) -> list[dict[str, Any]]:
        """The kinds of answers with the ids each takes, in order (for the docs and `coh export`)."""
        found = []
        for form in self.forms:
            ids = [self._ids[action] for action in form.actions()]
            found.append(
                {"answer": form.id, "first": min(ids), "count": len(ids)}
                if ids
                else {"answer": form.id, "count": 0}
            )
        return found


def action_space(rules: Rules) -> ActionSpace:
    """The ruleset's action space, worked out once."""
    found = rules.derived.get(SPACE_KEY)
    if found is None:
        found = rules.derived[SPACE_KEY] = ActionSpace(answer_forms(rules.pack))
    assert isinstance(found, ActionSpace)
    return found
