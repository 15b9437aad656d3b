"""Where a text belongs: what in a pack makes a text key one of its texts, told to a modder whose
text file has a key nothing asks for (`TEXT-UNKNOWN`).

A text is the pack's when something the pack declares asks for it (docs/modding.md, "Texts a
pack must provide"): an entity's kind (`<kind>.<id>.<text>`), the turn (`phase.<id>.name`,
`step.<phase>.<step>.name`), the result (`tie_break.<id>.name`), a verb marked `scoreboard:
part` (`log.scoring.<verb>`), a declared trait (`log.trait_set.<trait>...`), or a message of the
`messages` section, by its group (`log.<id>`, `ui.decision.<id>`, `ui.action.<id>`,
`ui.table.<id>`, `ui.<id>`). From a key's shape, `where_text_belongs` guesses which, and says
what the pack lacks for the key to be one of its texts.
"""

from __future__ import annotations

from coh_core.effects.checker import suggest
from coh_core.messages import GROUPS
from coh_core.packs.declarations import declarations_of
from coh_core.packs.model import RESULT_SECTION, Pack
from coh_core.packs.results import SCORE_PART, score_part_key

# The message groups by the prefix of their text keys, the longest first (`ui.` last); `log.`
# is both the entries' and the parts'.
_GROUP_OF: tuple[tuple[str, str], ...] = tuple(
    sorted(
        ((prefix, group) for group, prefix in GROUPS.items() if group != "parts"), key=lambda p: -len(p[0])
    )
)
_TRAIT_TEXTS = "log.trait_set."  # the change of a trait (coh_core.messages.log_variant_messages)


def where_text_belongs(key: str, pack: Pack) -> str:
    """What would make `key` a text of the pack, guessed from its shape ('' for no guess)."""
    score_part = score_part_key("")
    if key.startswith(score_part):
        return _score_part(key.removeprefix(score_part), pack)
    if key.startswith(_TRAIT_TEXTS):
        trait = key.removeprefix(_TRAIT_TEXTS).split(".")[0]
        if trait in declarations_of(pack).traits:  # another variant than its type's, or a quiet one's
            return ""
        return f"it would tell a change of the trait `{trait}`, which is declared in no `traits`"
    head, _, rest = key.partition(".")
    ident = rest.rsplit(".", 1)[0] if rest.endswith(".name") else ""
    if head in pack.entity_kinds() and rest:
        return _entity_text(head, rest, pack)
    if head == "phase" and ident:
        return f"it would name the phase `{ident}`, which is no phase of the `turn`"
    if head == "step" and ident:
        return f"it would name the step `{ident}`, which is no step of the `turn` (`<phase>.<step>`)"
    if head == "tie_break" and ident:
        return f"it would name the tie-break `{ident}`, which `{RESULT_SECTION}: tie_breaks` does not declare"
    for prefix, group in _GROUP_OF:
        if key.startswith(prefix) and len(key) > len(prefix):
            return _message(key.removeprefix(prefix), group)
    return ""


def _score_part(ident: str, pack: Pack) -> str:
    verb = pack.entity(ident)
    if verb is not None and verb.kind == "verb":
        return (
            f"it would name a part of the score on the scoreboard: mark the verb `{ident}`"
            f" `scoreboard: {SCORE_PART}`"
        )
    return (
        f"a part of the score is named after the verb marked `scoreboard: {SCORE_PART}` that counts it,"
        f" and `{ident}` is no verb of the pack"
    )


def _entity_text(kind: str, rest: str, pack: Pack) -> str:
    ids = list(pack.entities.get(kind, {}))
    ident = next((i for i in sorted(ids, key=len, reverse=True) if rest.startswith(f"{i}.")), None)
    if ident is None:
        return (
            f"it would be a text of a `{kind}`, and the pack has no `{kind}` `{rest.split('.')[0]}`"
            + suggest(rest.split(".")[0], ids)
        )
    text = rest.removeprefix(f"{ident}.")
    return (
        f"it would be a text of the {kind} `{ident}`, whose kind does not ask for `{text}` (a kind's"
        " `texts` and its fields' `text` say which texts its entities have)"
    )


def _message(ident: str, group: str) -> str:
    """A message of the pack's `messages` section, declared under its group."""
    where = (
        f"under `{group}`"
        if group != "log"
        else "under `log` (an entry `log(...)` writes) or `parts` (a piece of one)"
    )
    return (
        f"declare it in the `messages` section {where} as `{ident}`, with its placeholders"
        f" (an overlay: a `merge: messages/{group}` patch)"
    )
