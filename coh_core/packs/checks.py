"""Semantic checks of a loaded pack: what a schema cannot say.

References between entities, counts that must hold, the setup tables, the rules the pack's
kinds of entities state (coh_core.packs.kind_checks), and the English text every entity needs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import PurePath
from typing import Any

from coh_core.effects import ast
from coh_core.effects.checker import suggest
from coh_core.effects.registry import (
    LOCATION_TYPE,
    PLACE_TYPE,
    TYPES,
    VERB_CONTEXTS,
    Declarations,
    is_key_type,
    map_types,
    normalize_type,
    parse_param,
    signature,
)
from coh_core.errors import Location, Problem
from coh_core.i18n import SOURCE_LOCALE, text_forms
from coh_core.messages import (
    DURATION,
    ENGINE_LOG,
    ENGINE_LOG_GROUP,
    GROUPS,
    NONE_VARIANT,
    DeclaredMessages,
    Message,
    PlaceholderType,
    declarations,
    engine_log_tellings,
    engine_texts,
    log_key,
    log_variant_messages,
    parse_type,
    placeholders,
    window_key,
)
from coh_core.packs.answers import check_answer_values
from coh_core.packs.bot_hints import check_bots
from coh_core.packs.cost import runaway_problems
from coh_core.packs.declarations import (
    NUMBER_TYPES,
    SCALAR_TYPES,
    check_declarations,
    check_references,
    check_trigger_ids,
    declarations_of,
    expected_value,
    fits,
    messages_of,
    number_bounds,
    value_hint,
)
from coh_core.packs.engine_texts import engine_english, engine_pack
from coh_core.packs.fields import field_texts
from coh_core.packs.i18n_check import (
    check_locale,
    check_translations,
    file_form_problems,
    pack_forms,
    plural_problems,
)
from coh_core.packs.kind_checks import (
    check_entity_rules,
    check_kind_fields,
    check_kind_names,
    check_kinds,
    check_pack_rules,
    check_section_fields,
)
from coh_core.packs.loader import TEXT_DIR
from coh_core.packs.model import (
    BOARD,
    OPTIONAL_SECTIONS,
    RESULT_SECTION,
    SINGLETON_SECTIONS,
    Entity,
    Pack,
    Section,
)
from coh_core.packs.results import check_result, score_part_key, score_part_verbs, tie_break_texts
from coh_core.packs.roles import PlaceSide, place_sides, places_of, role_of, sides_by_name
from coh_core.packs.text_places import where_text_belongs
from coh_core.packs.yamlsrc import Path_, YamlDoc


def semantic_problems(pack: Pack) -> list[Problem]:
    checks = _ENTITY_CHECKS + (_PACK_CHECKS if pack.complete else [])
    return [problem for check in checks for problem in check(pack)]


# -- helpers ------------------------------------------------------------------------


def _at(section: Section, path: Path_) -> Any:
    return section.doc.location((*section.path, *path))


def _ref_problem(pack: Pack, section: Section, path: Path_, value: Any, kind: str) -> Problem | None:
    """A problem if `value` is not the id of an entity of `kind`."""
    known = pack.entities.get(kind, {})
    if isinstance(value, str) and value in known:
        return None
    other = pack.entity(value) if isinstance(value, str) else None
    if other is not None:
        return Problem("REF-KIND", f"`{value}` is a {other.kind}, but a {kind} is needed", _at(section, path))
    return Problem("REF-UNDEF", f"unknown {kind} `{value}`" + suggest(str(value), known), _at(section, path))


def _refs(pack: Pack, section: Section, key: str, kind: str) -> Iterator[Problem]:
    values = section.data.get(key)
    if not isinstance(values, list):
        return
    for index, value in enumerate(values):
        found = _ref_problem(pack, section, (key, index), value, kind)
        if found:
            yield found


# -- rule parameters -----------------------------------------------------------------


def _check_params(pack: Pack) -> Iterator[Problem]:
    """Each parameter's type is one the language knows, and its value fits it and its bounds."""
    section = pack.sections.get("params")
    if section is None:
        return
    declared = declarations_of(pack)
    for name, param in section.data.items():
        if isinstance(param, dict) and section.doc.is_valid((*section.path, name)):
            yield from _check_param(section, str(name), param, declared)


def _check_param(
    section: Section, name: str, param: dict[str, Any], declared: Declarations
) -> Iterator[Problem]:
    kind, value = str(param["type"]), param["value"]
    known = [*SCALAR_TYPES, *declared.enum_names()]
    if declared.is_rejected_type(kind):
        return  # its type's declaration is broken: reported there
    if kind not in known:
        yield Problem(
            "PARAM-TYPE",
            f"`{name}` has the unknown type `{kind}`"
            + (suggest(kind, known) or f"; types: {', '.join(known)}"),
            _at(section, (name, "type")),
        )
        return
    bounds = [key for key in ("min", "max") if key in param]
    if bounds and kind not in NUMBER_TYPES:
        yield Problem(
            "PARAM-TYPE",
            f"`{name}` is not a number: it has no `{bounds[0]}`",
            _at(section, (name, bounds[0])),
        )
    if not fits(kind, value, declared):
        yield Problem(
            "PARAM-TYPE",
            f"`{name}` must be {expected_value(kind, declared)}, got {json.dumps(value)}"
            + value_hint(kind, value, declared),
            _at(section, (name, "value")),
        )
    elif kind in NUMBER_TYPES:
        yield from _param_range(section, name, param)


def _param_range(section: Section, name: str, param: dict[str, Any]) -> Iterator[Problem]:
    value = int(param["value"])
    low, high = number_bounds(str(param["type"]), param.get("min"), param.get("max"))
    if not low <= value <= high:
        yield Problem(
            "PARAM-RANGE",
            f"`{name}` is {value}; the rules allow {low} to {high}",
            _at(section, (name, "value")),
        )


# -- verbs the pack defines ------------------------------------------------------------


def _check_verbs(pack: Pack) -> Iterator[Problem]:
    """A pack verb has a name of its own, parameters of known types, and never calls itself."""
    declared = declarations_of(pack)
    for verb in pack.entities_of("verb"):
        if signature(verb.id) is not None:
            yield Problem(
                "VERB-DUPLICATE",
                f"`{verb.id}` is a built-in verb or selector of the language; name this verb otherwise",
                verb.doc.location((*verb.path, "id")),
            )
        for name, spec in (verb.data.get("params") or {}).items():
            param = parse_param(str(name), str(spec))
            where = verb.doc.location((*verb.path, "params", name))
            if param is None:
                yield Problem("VERB-PARAM", f"`{name}: {spec}` is not `type` or `type = default`", where)
            elif not declared.is_known_type(param.type) and not declared.is_rejected_type(param.type):
                yield Problem("VERB-PARAM", _unknown_type(str(name), param.type, declared), where)
        if verb.data.get("scoreboard") is not None:
            yield from _check_score_part(verb)
    yield from _verb_cycles(pack)
    yield from runaway_problems(pack)


def _check_score_part(verb: Entity) -> Iterator[Problem]:
    """A part of the score (`scoreboard: part`) is read once the game is over, for each player:
    a selector of one `player` that returns an `int` and asks nothing."""
    if not _reads_a_score(verb):
        shown = ", ".join(f"{name}: {spec}" for name, spec in (verb.data.get("params") or {}).items())
        yield Problem(
            "VERB-SCOREBOARD",
            f"`{verb.id}` is marked `scoreboard: part`, so it is read for each player once the game"
            f" is over: it must take one `player` and return an `int` without asking (it takes"
            f" ({shown}), returns {verb.data.get('returns') or 'nothing'}"
            + (", asks" if verb.data.get("asks") else "")
            + ")",
            verb.doc.location((*verb.path, "scoreboard")),
        )


def _reads_a_score(verb: Entity) -> bool:
    """Whether a verb is a selector of one `player` that returns an `int` and asks nothing."""
    params = [parse_param(str(name), str(spec)) for name, spec in (verb.data.get("params") or {}).items()]
    types = [param.type if param is not None else "?" for param in params]
    return types == ["player"] and verb.data.get("returns") == "int" and not verb.data.get("asks")


def _unknown_type(name: str, type_name: str, declared: Declarations) -> str:
    """Why a parameter's type is refused: a map keyed by what is no name, or a type unknown."""
    keyed = map_types(type_name)
    if keyed is not None and not is_key_type(keyed[0]):
        return (
            f"`{name}` is a map with keys of type `{keyed[0]}`; the keys of a map are names"
            " (players, locations, characters, values of an enumeration...)"
        )
    known = [*TYPES, *declared.enum_names()]
    return f"`{name}` has the unknown type `{type_name}`" + suggest(type_name, known)


def _verb_cycles(pack: Pack) -> Iterator[Problem]:
    """A verb that calls itself, directly or through others, would never end: refused."""
    verbs = {verb.id: verb for verb in pack.entities_of("verb")}
    calls = {
        effect.slot.owner: {name for name in called_names(effect.tree) if name in verbs}
        for effect in pack.effects
        if effect.slot.context in VERB_CONTEXTS and effect.slot.owner in verbs
    }
    for start in sorted(calls):
        path = _cycle_from(start, calls)
        if path:
            verb = verbs[start]
            yield Problem(
                "VERB-RECURSION",
                f"`{start}` calls itself ({' -> '.join(path)}); a verb may not, as it would never end",
                verb.doc.location((*verb.path, "do")),
            )


def called_names(tree: ast.Node) -> frozenset[str]:
    """The names a tree calls, worked out once per tree: the trees of the same text are one
    object (coh_core.effects.parser), and a tree never changes."""
    found = _CALLED.get(id(tree))
    if found is None or found[0] is not tree:
        if len(_CALLED) > 50_000:
            _CALLED.clear()
        found = _CALLED[id(tree)] = (tree, frozenset(call.name for call in ast.calls(tree)))
    return found[1]


_CALLED: dict[int, tuple[ast.Node, frozenset[str]]] = {}  # by the tree's identity (kept alive here)


def _cycle_from(start: str, calls: dict[str, set[str]]) -> list[str]:
    """A chain of calls from `start` back to itself, or [] if there is none."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        name, path = stack.pop()
        for callee in sorted(calls.get(name, ())):
            if callee == start:
                return [*path, start]
            if callee not in seen:
                seen.add(callee)
                stack.append((callee, [*path, callee]))
    return []


# -- messages the pack declares ------------------------------------------------------------


def _check_messages(pack: Pack) -> Iterator[Problem]:
    """Each declared message has a text key of its own; its plural number and an answer's
    `key_at` name one of its placeholders or values."""
    section = pack.sections.get("messages")
    if section is None:
        return
    engine = engine_texts(declarations_of(pack))
    texts = messages_of(pack).texts
    seen: dict[str, str] = {}
    for group, message_id, spec in declarations(section.data):
        path = (group, message_id)
        if not section.doc.is_valid((*section.path, *path)):
            continue
        key = GROUPS[group] + message_id
        if key in engine or key in seen:
            owner = "the engine" if key in engine else f"`{seen[key]}`"
            reword = " (to reword the engine's, write its text without declaring it)" if key in engine else ""
            yield Problem(
                "MSG-DUPLICATE",
                f"`{message_id}` has the text `{key}`, which {owner} already declares; name it otherwise"
                + reword,
                section.doc.location((*section.path, *path), key=True),
            )
        seen.setdefault(key, f"{group}/{message_id}")
        yield from _check_message(section, path, spec, texts)
        if group == "log":
            yield from _check_phase_names(pack, section, path, spec)
        if group == "table":
            yield from _check_table_text(pack, section, path)
    for message_id, spec in engine_log_tellings(section.data):
        path = (ENGINE_LOG_GROUP, message_id)
        if not section.doc.is_valid((*section.path, *path)):
            continue
        if message_id not in ENGINE_LOG:
            yield Problem(
                "MSG-ENGINE-LOG",
                f"`{message_id}` is no log entry the engine writes: `{ENGINE_LOG_GROUP}` tells only"
                " those (declare the game's own under `log`)" + suggest(message_id, list(ENGINE_LOG)),
                section.doc.location((*section.path, *path), key=True),
            )
            continue
        yield from _check_phase_names(pack, section, path, spec)


def _check_message(
    section: Section, path: Path_, spec: dict[str, Any], texts: Mapping[str, Message]
) -> Iterator[Problem]:
    params = list(spec.get("params") or {})
    carries = spec.get("carries")
    carries = list(carries) if isinstance(carries, dict) else []
    for field_name, what, names in (("params", "placeholder", params), ("carries", "value", carries)):
        if path[0] == "log" and "to" in names:
            yield Problem(
                "MSG-PLACEHOLDER",
                f"`{path[-1]}` has a {what} `to`, which `log({path[-1]}, to=...)` cannot fill:"
                f" `to` names who sees the entry; name the {what} otherwise",
                section.doc.location((*section.path, *path, field_name, "to"), key=True),
            )
    plural = spec.get("plural")
    if plural is not None and plural not in params:
        yield Problem(
            "MSG-PLURAL",
            f"`plural: {plural}` is not a placeholder of `{path[-1]}`"
            + (suggest(str(plural), params) or f"; its placeholders: {', '.join(params) or 'none'}"),
            _at(section, (*path, "plural")),
        )
    yield from _check_types(section, path, params + carries, spec.get("types"), texts)
    yield from _check_moves_to(section, path, params, spec)
    key_at = spec.get("key_at")
    if key_at is None:
        return
    if "." not in str(path[-1]):
        yield Problem(
            "MSG-ANSWER",
            f"`{path[-1]}` has `key_at` but no value in its id: write `{path[-1]}.<value>`",
            _at(section, (*path, "key_at")),
        )
    elif key_at > len(params) + 1:
        yield Problem(
            "MSG-ANSWER",
            f"`key_at: {key_at}` is past the answer's values: its {len(params)} placeholder(s) and the key",
            _at(section, (*path, "key_at")),
        )


MOVING_GROUPS = ("answers", "decisions")  # the messages whose `moves_to` the menus read


def _check_moves_to(
    section: Section, path: Path_, params: list[str], spec: dict[str, Any]
) -> Iterator[Problem]:
    """An answer's or a question's `moves_to` names one of its placeholders, of the board's places'
    type (no other message moves anything)."""
    moves_to = spec.get("moves_to")
    if moves_to is None:
        return
    if path[0] not in MOVING_GROUPS:
        said = f"`{path[-1]}` is no answer or question: `moves_to` says where an answer moves a piece"
        yield Problem("MSG-ANSWER", said, _at(section, (*path, "moves_to")))
        return
    types = spec.get("types")
    written = types.get(moves_to) if isinstance(types, dict) else None
    if moves_to not in params:
        said = f"`moves_to: {moves_to}` is not a placeholder of `{path[-1]}`" + (
            suggest(str(moves_to), params) or f"; its placeholders: {', '.join(params) or 'none'}"
        )
        yield Problem("MSG-ANSWER", said, _at(section, (*path, "moves_to")))
    elif written != LOCATION_TYPE:
        said = f"`moves_to: {moves_to}` names a placeholder of the type `{written}`, not `{LOCATION_TYPE}`"
        yield Problem("MSG-ANSWER", said, _at(section, (*path, "moves_to")))


def _check_phase_names(pack: Pack, section: Section, path: Path_, spec: dict[str, Any]) -> Iterator[Problem]:
    """A log message's `variants` and `quiet_in` name phases of the pack's turn (or `setup`,
    `end`; a variant may also be `none`): a name that is none would never be used."""
    turn = pack.section("turn")
    phases = turn.get("phases") if isinstance(turn, dict) else None
    if not isinstance(phases, list):
        return  # a pack without a turn structure of its own (an overlay): its base has the phases
    known = ["setup", *(str(p.get("id")) for p in phases if isinstance(p, dict)), "end"]
    for field_name, extra in (("variants", [NONE_VARIANT]), ("quiet_in", [])):
        names = spec.get(field_name)
        for index, name in enumerate(names if isinstance(names, dict | list) else ()):
            if name not in known and name not in extra:
                yield Problem(
                    "MSG-PHASE",
                    f"`{field_name}` of `{path[-1]}` names `{name}`, which is no phase of the turn"
                    + (suggest(str(name), [*known, *extra]) or f"; the phases: {', '.join(known + extra)}"),
                    section.doc.location(
                        (*section.path, *path, field_name, index if isinstance(names, list) else name),
                        key=isinstance(names, dict),
                    ),
                )


# What a `table` message may be of: the pack's components of this kind, and whose they must be.
_TABLE_TEXTS: dict[str, tuple[str, str | None]] = {
    "pointer": ("pointers", None),
    "count": ("counters", None),
    "own.count": ("counters", None),
    "pile": ("piles", "location"),
    "own.pile": ("piles", "player"),
}


def _check_table_text(pack: Pack, section: Section, path: Path_) -> Iterator[Problem]:
    """A `table` message names a component of the pack the table can show there."""
    what, _, name = str(path[-1]).rpartition(".")
    if what.startswith("edge."):
        yield from _check_edge_text(pack, section, path, what.removeprefix("edge."), name)
        return
    if what not in _TABLE_TEXTS:
        return  # the schema reports it
    kind, per = _TABLE_TEXTS[what]
    components = pack.section("components").get(kind) or {}
    entry = components.get(name) if isinstance(components, dict) else None
    if entry is None and ("components", kind, name) in pack.rejected_entries:
        return  # its declaration is broken: reported there
    if entry is None or (per is not None and isinstance(entry, dict) and entry.get("per") != per):
        fitting = [
            k for k, v in components.items() if per is None or (isinstance(v, dict) and v.get("per") == per)
        ]
        owner = f" kept per {per}" if per else ""
        yield Problem(
            "MSG-TABLE",
            f"`{path[-1]}`: the table shows {kind}{owner} of the pack's `components`, and `{name}` is none"
            + (suggest(name, fitting) or f"; they are: {', '.join(fitting) or 'none'}"),
            section.doc.location((*section.path, *path), key=True),
        )


def _check_edge_text(pack: Pack, section: Section, path: Path_, graph: str, state: str) -> Iterator[Problem]:
    """`edge.<graph>.<state>`: a graph of the pack, and a state one of its kinds of edges has."""
    graphs = pack.section("components").get("graphs") or {}
    entry = graphs.get(graph) if isinstance(graphs, dict) else None
    if entry is None and ("components", "graphs", graph) in pack.rejected_entries:
        return  # its declaration is broken: reported there
    kinds = entry.get("edge_kinds") if isinstance(entry, dict) else None
    states = sorted(
        {str(s) for k in (kinds.values() if isinstance(kinds, dict) else []) if isinstance(k, dict)
         for s in k.get("states") or []}
    )  # fmt: skip
    if entry is None:
        problem = f"`{path[-1]}`: the table shows the edges of a graph of the pack, and `{graph}` is none"
        problem += suggest(graph, sorted(graphs) if isinstance(graphs, dict) else [])
    elif state not in states:
        problem = f"`{path[-1]}`: no kind of edge of `{graph}` has the state `{state}`" + (
            suggest(state, states) or f"; the states are: {', '.join(states) or 'none'}"
        )
    else:
        return
    yield Problem("MSG-TABLE", problem, section.doc.location((*section.path, *path), key=True))


def _check_types(
    section: Section, path: Path_, params: list[str], types: Any, texts: Mapping[str, Message]
) -> Iterator[Problem]:
    """Each type a message declares is of one of its placeholders or carried values, and written as
    a type; a `via` names a part the pack declares that takes only what an entry gives it; a `by`
    names a map of numbers with the same keys."""
    for name, written in (types if isinstance(types, dict) else {}).items():
        if name not in params:
            yield Problem(
                "MSG-TYPE",
                f"`types` gives `{name}`, which is no placeholder or carried value of `{path[-1]}`"
                + (suggest(str(name), params) or f"; those it has: {', '.join(params) or 'none'}"),
                section.doc.location((*section.path, *path, "types", name), key=True),
            )
        elif not isinstance(written, str) or (found := parse_type(written)) is None:
            yield Problem(
                "MSG-TYPE",
                f"`{name}: {written}` is no type: write a name (`location`, `int`), `list[T]`"
                " or `map[K, V] via <part>` (maybe followed by `by <param>`)",
                _at(section, (*path, "types", name)),
            )
        elif found.via and (problem := _via_problem(found.via, texts)):
            yield Problem("MSG-TYPE", f"`{name}: {written}`: {problem}", _at(section, (*path, "types", name)))
        elif found.by and not _counts_by_key(types.get(found.by), found):
            yield Problem(
                "MSG-TYPE",
                f"`{name}: {written}`: `by {found.by}` names no placeholder or carried value of"
                f" `{path[-1]}` whose type is a map of numbers with the same keys",
                _at(section, (*path, "types", name)),
            )


# what a map's entry fills in the part it is told through (`coh_core.narrative`)
PART_PLACEHOLDERS = ("name", "value", "count")


def _via_problem(via: str, texts: Mapping[str, Message]) -> str | None:
    """What is wrong with the part a map's entries are told through (None: nothing): each entry
    fills its `{name}` (the key), `{value}` and `{count}`."""
    part = texts.get(log_key(via))
    if part is None:
        told = [key.removeprefix(log_key("")) for key in texts if key.startswith(log_key(""))]
        return f"`via {via}` names no part the pack declares (`parts`)" + suggest(via, told)
    others = [p for p in part.params if p not in PART_PLACEHOLDERS]
    if others:
        return (
            f"the part `{via}` takes {', '.join(f'{{{p}}}' for p in others)}, which an entry cannot"
            f" fill (it gives {', '.join(f'{{{p}}}' for p in PART_PLACEHOLDERS)})"
        )
    return None


def _counts_by_key(written: Any, counted: PlaceholderType) -> bool:
    """Whether a placeholder's type is a map from the counted map's keys to numbers."""
    found = parse_type(written) if isinstance(written, str) else None
    return (
        found is not None
        and found.name == "map"
        and found.args[:1] == counted.args[:1]
        and found.args[1].name in ("int", "count")
    )


# -- components and setup -------------------------------------------------------------


def _check_sections(pack: Pack) -> Iterator[Problem]:
    """A base pack defines every singleton section somewhere in its files."""
    for name in SINGLETON_SECTIONS:
        if name not in pack.sections and name not in OPTIONAL_SECTIONS:
            yield Problem(
                "SECTION-MISSING", f"the pack has no `{name}` section", pack.manifest_doc.location(())
            )


def _check_components(pack: Pack) -> Iterator[Problem]:
    components = pack.sections.get("components")
    if components is None:
        return
    yield from _check_counters(pack, components)
    yield from _check_piles(components)
    yield from _check_pile_sizes(pack, components)
    yield from _check_pointers(components)
    yield from _check_memory(pack, components)
    yield from _check_pieces(pack, components)
    yield from _check_graphs(pack, components)
    yield from _check_place_kinds(pack, components)


def _check_place_kinds(pack: Pack, components: Section) -> Iterator[Problem]:
    """An entity of a kind whose ids are of the type `place` is a place counters sit at only when
    `components: places` names it (a place of the board is of a kind whose ids are locations):
    in play, counting at another would fail."""
    named = components.data.get("places")
    places = named if isinstance(named, dict) else {}
    for kind, entry in pack.kind_declarations().items():
        if entry.get("type") != PLACE_TYPE:
            continue
        for entity in pack.entities_of(kind):
            if entity.id not in places:
                yield Problem(
                    "KIND-PLACE",
                    f"`{entity.id}` is a place (kind `{kind}` has the type `place`) that"
                    " `components: places` does not name, so no counter can sit there: name it"
                    " there, or give the kind the type `location` and put it on the board"
                    " (`setup.board.locations`)",
                    entity.doc.location((*entity.path, "id")),
                )


def _check_pieces(pack: Pack, components: Section) -> Iterator[Problem]:
    """A kind of pieces is of a kind of entity the pack declares, which no other kind of pieces is of;
    at most one kind of pieces has each role."""
    pieces = components.data.get("pieces")
    kinds = pack.entity_kinds()
    roles: dict[Any, str] = {}  # a role -> the first kind of pieces with it
    kinds_of: dict[str, str] = {}  # a kind of entity -> the first kind of pieces of it
    for name, entry in (pieces if isinstance(pieces, dict) else {}).items():
        if not isinstance(entry, dict):
            continue
        of, role = entry.get("of"), entry.get("role")
        if isinstance(of, str) and of not in kinds:
            yield Problem(
                "COMPONENT-PIECES",
                f"the pieces `{name}` are of `{of}`, which is no kind of entity of the pack"
                + suggest(of, kinds),
                _at(components, ("pieces", name, "of")),
            )
        elif isinstance(of, str) and of in kinds_of:
            yield Problem(
                "COMPONENT-PIECES",
                f"the pieces `{name}` and `{kinds_of[of]}` are both of `{of}`: a piece's id is its"
                " entity's, so one kind of pieces has each kind of entity",
                _at(components, ("pieces", name, "of")),
            )
        if isinstance(of, str):
            kinds_of.setdefault(of, name)
        if role is not None and role in roles:
            yield Problem(
                "COMPONENT-PIECES",
                f"the pieces `{name}` and `{roles[role]}` both have the role `{role}`: at most one kind"
                " of pieces has each role",
                _at(components, ("pieces", name, "role")),
            )
        roles.setdefault(role, name)


# What a pile of each role must be kept per: the engine plays and gives from a player's `hand`,
# puts played cards on the one `played` pile, and shares out a location's `items` like counters.
_ROLE_PER = {"hand": "player", "played": "game", "items": "location"}


def _check_piles(components: Section) -> Iterator[Problem]:
    """A pile starts with a list of the components; each role is one pile's, kept as the role needs."""
    piles = components.data.get("piles")
    roles: dict[str, str] = {}
    for name, entry in (piles if isinstance(piles, dict) else {}).items():
        if not isinstance(entry, dict):
            continue
        start = entry.get("start")
        if isinstance(start, str) and not isinstance(components.data.get(start), list):
            lists = [k for k, v in components.data.items() if isinstance(v, list)]
            yield Problem(
                "COMPONENT-PILE",
                f"the pile `{name}` starts with `{start}`, which is no list of the components"
                + suggest(start, lists),
                _at(components, ("piles", name, "start")),
            )
        role, per = entry.get("role"), entry.get("per", "game")
        pieces = components.data.get("pieces")
        kinds = sorted(pieces) if isinstance(pieces, dict) else []
        if isinstance(per, str) and per not in ("game", "player", "location") and per not in kinds:
            yield Problem(
                "COMPONENT-PILE",
                f"the pile `{name}` is kept per `{per}`: not `game`, `player`, `location` nor a kind of"
                " pieces the pack declares (`components: pieces`)"
                + suggest(per, [*kinds, "player", "location"]),
                _at(components, ("piles", name, "per")),
            )
        if not isinstance(role, str):
            continue
        if role in roles:
            yield Problem(
                "COMPONENT-PILE",
                f"`{name}` and `{roles[role]}` both have the role `{role}`; one pile has it",
                _at(components, ("piles", name, "role")),
            )
        elif _ROLE_PER.get(role, per) != per:
            yield Problem(
                "COMPONENT-PILE",
                f"the pile `{name}` has the role `{role}`, which needs piles kept per {_ROLE_PER[role]}",
                _at(components, ("piles", name, "role")),
            )
        else:
            roles[role] = str(name)


def _check_pile_sizes(pack: Pack, components: Section) -> Iterator[Problem]:
    """A pile's `size` written as a name is a rule parameter whose value is a count."""
    piles = components.data.get("piles")
    params = pack.section("params")
    for name, entry in (piles if isinstance(piles, dict) else {}).items():
        size = entry.get("size") if isinstance(entry, dict) else None
        if not isinstance(size, str):
            continue
        param = params.get(size)
        kind = param.get("type") if isinstance(param, dict) else None
        if param is None or kind not in NUMBER_TYPES:
            counts = [k for k, v in params.items() if isinstance(v, dict) and v.get("type") in NUMBER_TYPES]
            yield Problem(
                "COMPONENT-PILE",
                f"the pile `{name}` has the size `{size}`: not a number nor a rule parameter that is one"
                + suggest(size, counts),
                _at(components, ("piles", name, "size")),
            )


def _check_counters(pack: Pack, components: Section) -> Iterator[Problem]:
    """A counter's supply is at a place the pack names; those places are no location or colour
    (counts are kept per place by name); no two kinds share a name as items."""
    places = components.data.get("places")
    places = places if isinstance(places, dict) else {}
    taken = {
        **{e.id: "a location" for e in places_of(pack)},
        **dict.fromkeys(pack.colours(), "a colour"),
    }
    for place in places:
        if place in taken:
            yield Problem(
                "COMPONENT-PLACE",
                f"the place `{place}` has the name of {taken[place]}; counters are counted per place by name",
                components.doc.location((*components.path, "places", place), key=True),
            )
    counters = components.data.get("counters")
    items: dict[str, str] = {}
    for kind, entry in (counters if isinstance(counters, dict) else {}).items():
        if not isinstance(entry, dict):
            continue
        at = entry.get("at")
        if isinstance(at, str) and at not in places:
            yield Problem(
                "COMPONENT-PLACE",
                f"the supply of `{kind}` is at `{at}`, which is not one of the pack's places"
                + suggest(at, places),
                _at(components, ("counters", kind, "at")),
            )
        item = entry.get("item")
        if isinstance(item, str) and item in items:
            yield Problem(
                "COMPONENT-ITEM",
                f"`{kind}` and `{items[item]}` are both called `{item}` as items",
                _at(components, ("counters", kind, "item")),
            )
        elif isinstance(item, str):
            items[item] = str(kind)


def _check_pointers(components: Section) -> Iterator[Problem]:
    """A pointer moves round the seats or a list of colours of the section; at most one starts
    the turn order."""
    pointers = components.data.get("pointers")
    leading: list[str] = []
    for name, entry in (pointers if isinstance(pointers, dict) else {}).items():
        if not isinstance(entry, dict):
            continue
        cycle = entry.get("cycle")
        if isinstance(cycle, str) and cycle != "seats" and not isinstance(components.data.get(cycle), list):
            lists = [k for k, v in components.data.items() if isinstance(v, list)]
            yield Problem(
                "COMPONENT-POINTER",
                f"the pointer `{name}` moves round `{cycle}`, which is neither `seats` nor a list of"
                " this section" + suggest(cycle, ["seats", *lists]),
                _at(components, ("pointers", name, "cycle")),
            )
        if entry.get("turn_order") is True:
            leading.append(str(name))
            if len(leading) > 1:
                yield Problem(
                    "COMPONENT-POINTER",
                    f"the turn order starts at both `{leading[0]}` and `{name}`: at most one pointer"
                    " starts it",
                    _at(components, ("pointers", name, "turn_order")),
                )


def _check_memory(pack: Pack, components: Section) -> Iterator[Problem]:
    """A value remembered has a type of the effect language; one of the game (not of each player)
    is a list or a map, which starts empty; only a value of each player has an owner."""
    memory = components.data.get("memory")
    declared = declarations_of(pack)
    roles: dict[Any, str] = {}  # a role -> the first memory with it
    for name, entry in (memory if isinstance(memory, dict) else {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            continue
        type_name, per_player = entry["type"], entry.get("per_player") is True
        problem = None
        if (
            declared.complete
            and not declared.is_known_type(normalize_type(type_name))
            and not declared.is_rejected_type(type_name)
        ):
            problem, key = (
                f"`{name}` has the type `{type_name}`, which the effect language does not know",
                "type",
            )
        elif not per_player and not type_name.startswith(("list[", "map[")):
            problem, key = (
                f"`{name}` is remembered for the game: its type is a list or a map, not `{type_name}`",
                "type",
            )
        elif not per_player and (entry.get("visible") == "owner" or "hidden_while_asked" in entry):
            problem = f"`{name}` is remembered for the game, so it has no owner to show it to"
            key = "visible" if "visible" in entry else "hidden_while_asked"
        elif "role" in entry and (per_player or normalize_type(type_name) != "list[player]"):
            problem, key = (
                f"`{name}` has the role `{entry['role']}`, which the engine keeps as a `list[player]`"
                " of the game",
                "type",
            )
        elif "role" in entry and entry["role"] in roles:
            problem, key = (
                f"`{name}` and `{roles[entry['role']]}` both have the role `{entry['role']}`: at most"
                " one memory has each role",
                "role",
            )
        elif not per_player and ("set_by" in entry or "read_by" in entry):
            problem = f"`{name}` is remembered for the game: a scenario gives it whole, no player can miss it"
            key = "set_by" if "set_by" in entry else "read_by"
        roles.setdefault(entry.get("role"), name)
        if problem is not None:
            where = ("memory", name, key) if key in entry else ("memory", name)
            yield Problem("COMPONENT-MEMORY", problem, _at(components, where))
        yield from _memory_verbs(pack, components, str(name), entry)


def _memory_verbs(pack: Pack, components: Section, name: str, entry: dict[str, Any]) -> Iterator[Problem]:
    """`set_by` and `read_by` name verbs: the pack's or the language's."""
    verbs = {verb.id for verb in pack.entities_of("verb")}
    for key in ("set_by", "read_by"):
        verb = entry.get(key)
        if isinstance(verb, str) and verb not in verbs and signature(verb) is None:
            yield Problem(
                "REF-UNDEF",
                f"`{name}`'s `{key}` names `{verb}`, which is no verb of the pack or the language"
                + suggest(verb, sorted(verbs)),
                _at(components, ("memory", name, key)),
            )


def _check_graphs(pack: Pack, components: Section) -> Iterator[Problem]:
    """A graph's places are entities of the type it says (GRAPH-OF, GRAPH-PLACE); an edge is of a
    kind the graph declares (GRAPH-EDGE-KIND), joins two places (GRAPH-EDGE-LOOP) no other edge
    joins (GRAPH-EDGE-TWICE); a kind's states are each named once and its passable states are
    some of them (GRAPH-STATES); a line names each place once, every two in a row joined by an
    edge (GRAPH-LINE)."""
    graphs = components.data.get("graphs")
    for name, entry in (graphs if isinstance(graphs, dict) else {}).items():
        if not isinstance(entry, dict) or not components.doc.is_valid((*components.path, "graphs", name)):
            continue
        yield from _check_graph(pack, components, str(name), entry)


def _check_graph(pack: Pack, components: Section, name: str, entry: dict[str, Any]) -> Iterator[Problem]:
    def at(*path: str | int) -> Location:
        found: Location = _at(components, ("graphs", name, *path))
        return found

    of = str(entry["of"])
    types = pack.ref_types()
    places: set[str] | None = None  # (None: the type is unknown, its places are not checked)
    if of in types.values():
        places = {ident for kind, t in types.items() if t == of for ident in pack.entities.get(kind, {})}
    else:
        known = sorted(set(types.values()))
        yield Problem(
            "GRAPH-OF",
            f"the places of the graph `{name}` are of `{of}`, which is no type of the pack's entities"
            + (suggest(of, known) or f" (its types: {', '.join(known)})"),
            at("of"),
        )
    kinds: dict[str, Any] = entry.get("edge_kinds") or {}
    for kind, spec in kinds.items():
        yield from _check_edge_kind(name, str(kind), spec, lambda *p, k=kind: at("edge_kinds", k, *p))
    joined: dict[frozenset[str], int] = {}  # the two places of an edge -> the first edge between them
    for index, edge in enumerate(entry.get("edges") or []):
        between = [str(p) for p in edge["between"]]
        for end, place in enumerate(between):
            if places is not None and place not in places:
                yield _graph_place(name, of, place, places, at("edges", index, "between", end))
        if edge["kind"] not in kinds:
            yield Problem(
                "GRAPH-EDGE-KIND",
                f"an edge of the graph `{name}` is of kind `{edge['kind']}`, which the graph does not"
                " declare" + (suggest(str(edge["kind"]), kinds) or f" (its kinds: {', '.join(kinds)})"),
                at("edges", index, "kind"),
            )
        pair = frozenset(between)
        if len(pair) == 1:
            yield Problem(
                "GRAPH-EDGE-LOOP",
                f"an edge of the graph `{name}` joins `{between[0]}` to itself; an edge joins two places",
                at("edges", index, "between"),
            )
        elif pair in joined:
            yield Problem(
                "GRAPH-EDGE-TWICE",
                f"`{between[0]}` and `{between[1]}` are joined twice in the graph `{name}` (edges"
                f" {joined[pair] + 1} and {index + 1}); edges go both ways, one joins two places",
                at("edges", index, "between"),
            )
        joined.setdefault(pair, index)
    for index, line in enumerate(entry.get("lines") or []):
        yield from _check_line(
            name, of, [str(p) for p in line], places, joined, lambda *p, i=index: at("lines", i, *p)
        )


def _graph_place(name: str, of: str, place: str, places: set[str], where: Location) -> Problem:
    return Problem(
        "GRAPH-PLACE",
        f"the graph `{name}` names `{place}`, which is no {of} of the pack" + suggest(place, sorted(places)),
        where,
    )


def _check_edge_kind(
    graph: str, kind: str, spec: dict[str, Any], at: Callable[..., Location]
) -> Iterator[Problem]:
    states = [str(s) for s in spec.get("states") or []]
    for index, state in enumerate(states):
        if state in states[:index]:
            yield Problem(
                "GRAPH-STATES",
                f"the edges of kind `{kind}` of the graph `{graph}` have the state `{state}` twice",
                at("states", index),
            )
    for index, state in enumerate(spec.get("passable") or []):
        if str(state) not in states:
            listed = f"; its states: {', '.join(states)}" if states else "; it has no states"
            yield Problem(
                "GRAPH-STATES",
                f"the edges of kind `{kind}` of the graph `{graph}` are passable in `{state}`, which is"
                f" not one of their states{listed}" + suggest(str(state), states),
                at("passable", index),
            )


def _check_line(
    graph: str,
    of: str,
    line: list[str],
    places: set[str] | None,
    joined: dict[frozenset[str], int],
    at: Callable[..., Location],
) -> Iterator[Problem]:
    for index, place in enumerate(line):
        if places is not None and place not in places:
            yield _graph_place(graph, of, place, places, at(index))
        elif place in line[:index]:
            yield Problem(
                "GRAPH-LINE",
                f"a line of the graph `{graph}` names `{place}` twice; a line is straight",
                at(index),
            )
        elif index > 0 and frozenset((line[index - 1], place)) not in joined:
            yield Problem(
                "GRAPH-LINE",
                f"a line of the graph `{graph}` goes from `{line[index - 1]}` to `{place}`, which no"
                " edge joins; every two places in a row of a line are joined by an edge",
                at(index),
            )


def _check_setup(pack: Pack) -> Iterator[Problem]:
    setup = pack.sections.get("setup")
    if setup is None:
        return
    yield from _check_player_counts(pack, setup)
    yield from _check_board(pack, setup)


def _check_player_range(pack: Pack, setup: Section, low: int, high: int) -> Iterator[Problem]:
    """`setup.players` is a range some game can be played with: its ends in order, and no more
    players than the pack has colours (a seat is a colour). Below 1 and above 12 is the schema's."""
    if low > high:
        yield Problem(
            "SETUP-PLAYERS",
            f"`players` is {{min: {low}, max: {high}}}: the fewest players ({low}) is more than the most"
            f" ({high}), so no number of players can play; swap them, or make `min` at most `max`",
            _at(setup, ("players", "min")),
        )
    colours = pack.colours()
    if colours and high > len(colours):
        yield Problem(
            "SETUP-PLAYERS",
            f"`players` allows up to {high} players but the pack has {len(colours)} colours"
            f" (`components` `colours`: {', '.join(colours)}), one for each player; lower `max` to"
            f" {len(colours)} or add colours",
            _at(setup, ("players", "max")),
        )


def _player_rows(setup: Section) -> tuple[dict[Any, tuple[int, dict[str, Any]]], list[Problem]]:
    """The setup's player table by player count, (index, row) of the first row of each count (the
    one the game reads), and a problem for each row of a count written again."""
    rows: dict[Any, tuple[int, dict[str, Any]]] = {}
    problems = []
    for index, row in enumerate(setup.data.get("per_player_count") or []):
        if not isinstance(row, dict):
            continue
        count = row.get("players")
        if count not in rows:
            rows[count] = (index, row)
            continue
        line = _at(setup, ("per_player_count", rows[count][0])).line
        problems.append(
            Problem(
                "SETUP-TABLE",
                f"a second setup row for {count} players (the first is at line {line}, and is the one"
                " the game reads); remove one of them",
                _at(setup, ("per_player_count", index, "players")),
            )
        )
    return rows, problems


def _check_player_counts(pack: Pack, setup: Section) -> Iterator[Problem]:
    players = setup.data.get("players") or {}
    low, high = players.get("min", 0), players.get("max", 0)
    yield from _check_player_range(pack, setup, low, high)
    rows, twice = _player_rows(setup)
    yield from twice
    colours = len(pack.colours()) or high
    for count in range(low, min(high, colours) + 1):  # more players than colours: reported above
        if count not in rows:
            yield Problem(
                "SETUP-TABLE",
                f"no setup row for {count} players, which `players` allows ({low} to {high})",
                _at(setup, ("per_player_count",)),
            )


def _check_board(pack: Pack, setup: Section) -> Iterator[Problem]:
    """The board holds every place (an entity of a kind whose ids are locations) once, in its
    order (`locations`), each with a side it can start on (`sides`)."""
    places = {entity.id: entity for entity in places_of(pack)}
    board = setup.data.get(BOARD)
    if not isinstance(board, dict):
        if places:
            yield Problem(
                "SETUP-BOARD",
                f"the pack has locations ({', '.join(f'`{i}`' for i in places)}) but `setup` has no"
                " `board` to lay them out: add `board: {locations: [...], sides: {...}}`",
                _at(setup, ()),
            )
        return
    listed = board.get("locations")
    placed: list[Any] = listed if isinstance(listed, list) else []
    for index, value in enumerate(placed):
        yield from _place_problem(pack, setup, (BOARD, "locations", index), value, places)
    missing = [i for i in places if i not in placed]
    if missing:
        yield Problem(
            "SETUP-BOARD",
            f"the board must hold every location once: it lacks {', '.join(f'`{m}`' for m in missing)}",
            _at(setup, (BOARD, "locations")),
        )
    sides = board.get("sides")
    yield from _check_board_sides(pack, setup, sides if isinstance(sides, dict) else {}, places)


def _place_problem(
    pack: Pack, setup: Section, path: Path_, value: Any, places: dict[str, Entity]
) -> Iterator[Problem]:
    """A problem if `value` is no place's id (REF-KIND: another entity's; REF-UNDEF: nothing's)."""
    if isinstance(value, str) and value in places:
        return
    other = pack.entity(value) if isinstance(value, str) else None
    if other is not None:
        yield Problem("REF-KIND", f"`{value}` is a {other.kind}, but a location is needed", _at(setup, path))
    else:
        yield Problem(
            "REF-UNDEF", f"unknown location `{value}`" + suggest(str(value), places), _at(setup, path)
        )


def _check_board_sides(
    pack: Pack, setup: Section, sides: dict[str, Any], places: dict[str, Entity]
) -> Iterator[Problem]:
    """Each place with states (sides) starts on one of them that is reached from no other, and
    each has one; a place without states is given none."""
    path = (BOARD, "sides")
    for place_id, side in sides.items():
        place = places.get(place_id)
        if place is None:
            yield from _place_problem(pack, setup, (*path, place_id), place_id, places)
            continue
        options = sides_by_name(pack, place)
        if not options:
            yield Problem(
                "SETUP-BOARD",
                f"location `{place_id}` has no sides to start on: leave it out of `sides`",
                _at(setup, (*path, place_id)),
            )
        elif side not in options or options[side].reached_from:
            playable = [name for name, found in options.items() if not found.reached_from]
            yield Problem(
                "REF-UNDEF",
                f"`{side}` is not a side `{place_id}` can start on; one of "
                f"{', '.join(playable)}" + suggest(str(side), playable),
                _at(setup, (*path, place_id)),
            )
    for place_id, place in places.items():
        if place_id not in sides and sides_by_name(pack, place):
            yield Problem("SETUP-BOARD", f"no starting side for location `{place_id}`", _at(setup, path))


# -- entities -----------------------------------------------------------------------


def _check_locations(pack: Pack) -> Iterator[Problem]:
    """No place has two sides of one name; a side that is a state of others names sides of its place."""
    by_place: dict[str, list[PlaceSide]] = {}
    for side in place_sides(pack):
        by_place.setdefault(side.place.id, []).append(side)
    for sides in by_place.values():
        names = {side.name for side in sides}
        counts = Counter(side.name for side in sides)
        for side in sides:
            location = side.place
            if counts[side.name] > 1:
                yield Problem(
                    "ID-DUPLICATE",
                    f"location `{location.id}` has two sides named `{side.name}`",
                    location.doc.location((*side.path, side.roles.name)),
                )
            for parent_index, parent in enumerate(side.reached_from):
                if parent not in names or parent == side.name:
                    yield Problem(
                        "REF-UNDEF",
                        f"`{parent}` is not another side of `{location.id}`" + suggest(str(parent), names),
                        location.doc.location((*side.path, str(side.roles.reached_from), parent_index)),
                    )


def _check_flips(pack: Pack) -> Iterator[Problem]:
    """`flip_board(here, X)` on a location side must name a side of that same location.

    A name that is no side of any location has already been reported by the checker.
    """
    declared = declarations_of(pack)
    by_place: dict[str, set[str]] = {}
    for side in place_sides(pack, declared):
        by_place.setdefault(side.place.id, set()).add(side.name)
    known_sides = set().union(*by_place.values())
    for compiled in pack.effects:
        slot = compiled.slot
        if role_of(slot.context, declared) != "place_trigger":
            continue
        location = pack.entity(slot.owner.split("/")[0])
        if location is None or location.id not in by_place:
            continue
        names = by_place[location.id]
        for call in ast.calls(compiled.tree):
            args = [a.value for a in call.args]
            if (
                call.name == "flip_board"
                and len(args) == 2
                and isinstance(args[0], ast.Name)
                and args[0].name == "here"
                and isinstance(args[1], ast.Name)
                and args[1].name not in names
                and args[1].name in known_sides
            ):
                yield Problem(
                    "REF-UNDEF",
                    f"`{location.id}` has no side `{args[1].name}`" + suggest(args[1].name, names),
                    slot.doc.offset_in_scalar(slot.path, args[1].span.start),
                )


# -- turn structure ------------------------------------------------------------------------


def _check_turn(pack: Pack) -> Iterator[Problem]:
    turn = pack.sections.get("turn")
    if turn is None:
        return
    phases = [p for p in turn.data.get("phases") or [] if isinstance(p, dict)]
    yield from _unique_ids(turn, ("phases",), phases, "phase")
    for index, phase in enumerate(phases):
        steps = [s for s in phase.get("steps") or [] if isinstance(s, dict)]
        yield from _unique_ids(turn, ("phases", index, "steps"), steps, "step")
    for key in ("setup", "end"):
        steps = [s for s in turn.data.get(key) or [] if isinstance(s, dict)]
        yield from _unique_ids(turn, (key,), steps, "step")


def _unique_ids(section: Section, path: Path_, items: list[dict[str, Any]], what: str) -> Iterator[Problem]:
    seen: set[Any] = set()
    for index, item in enumerate(items):
        if item.get("id") in seen:
            yield Problem(
                "ID-DUPLICATE",
                f"{what} id `{item.get('id')}` is used twice",
                _at(section, (*path, index, "id")),
            )
        seen.add(item.get("id"))


# -- text --------------------------------------------------------------------------------


def required_text_keys(pack: Pack) -> Iterator[tuple[str, Entity | None, Path_]]:
    """Every English message key the pack's entities need, with the entity that needs it."""
    for layer in [pack, *pack.overlays]:
        yield f"pack.{layer.id}.name", None, ("pack", layer.id)
    for kind, entry in pack.kind_declarations().items():
        for entity in pack.entities_of(kind):
            yield from _keys(entity, *map(str, entry.get("texts") or []))
            yield from _keys(entity, *field_texts(entity.data, entry.get("fields")))
    yield from _turn_keys(pack)
    for key, at in tie_break_texts(pack):
        yield key, None, at
    for verb in score_part_verbs(pack):  # the scoreboard names each part (VERB-SCOREBOARD: no part)
        if _reads_a_score(verb):
            yield score_part_key(verb.id), verb, ()
    declared = declarations_of(pack)
    engine = engine_texts(declared)
    for group, message_id, _ in declarations(pack.section("messages")):
        if GROUPS[group] + message_id not in engine:
            yield GROUPS[group] + message_id, None, ("messages", group, message_id)
    if pack.manifest.get("kind", "base") == "base":
        # A game that stands on its own is narrated and played with these: those the engine has no
        # text for (the pack's words: its traits' changes, durations, windows).
        origins = _engine_text_origins(declared)
        defaults = engine_english()
        for key in engine:
            if key not in defaults:
                yield key, None, origins.get(key, ())


def _engine_text_origins(declared: Declarations) -> dict[str, Path_]:
    """What the pack declares that each of the engine's texts named after its declarations is
    needed for: a trait (`log_variant_messages`), a window, a value of its durations. A missing
    one is reported there, in the overlay that declares it if one does."""
    return {
        **{log_key(key): ("traits", key.split(".")[1]) for key in log_variant_messages(declared)},
        **{window_key(name): ("windows", name) for name in declared.windows},
        **{
            log_key(f"{DURATION}.{v}"): ("types", DURATION, "values", v)
            for v in declared.members(DURATION) or {}
        },
    }


def _keys(entity: Entity, *fields: str) -> Iterator[tuple[str, Entity | None, Path_]]:
    for field in fields:
        yield f"{entity.kind}.{entity.id}.{field}", entity, ()


def _turn_keys(pack: Pack) -> Iterator[tuple[str, Entity | None, Path_]]:
    turn = pack.section("turn")
    for p, phase in enumerate(turn.get("phases") or []):
        if isinstance(phase, dict):
            yield f"phase.{phase.get('id')}.name", None, ("turn", "phases", p, "id")
            for s, step in enumerate(phase.get("steps") or []):
                if isinstance(step, dict):
                    yield (
                        f"step.{phase.get('id')}.{step.get('id')}.name",
                        None,
                        ("turn", "phases", p, "steps", s, "id"),
                    )
    for key in ("setup", "end"):
        for s, step in enumerate(turn.get(key) or []):
            if isinstance(step, dict):
                yield f"step.{key}.{step.get('id')}.name", None, ("turn", key, s, "id")


def _check_texts(pack: Pack) -> Iterator[Problem]:
    """The English text, then (once it is sound) every translation of it."""
    english = list(_check_text(pack))
    yield from english
    if not english:
        yield from _check_translations(pack)


def _check_text(pack: Pack) -> Iterator[Problem]:
    english = pack.text.get("en")
    if english is None:
        yield Problem(
            "TEXT-MISSING",
            "the pack has no English text (`text: {en: ...}` in the manifest)",
            pack.manifest_doc.location(("text",)),
        )
        return
    messages = pack.messages("en")  # with the overlays' texts on top
    declared = messages_of(pack)
    # Without a messages section (SECTION-MISSING says so), the texts of messages belong to
    # what is missing: not reported one by one.
    undeclared = () if "messages" in pack.sections else tuple(set(GROUPS.values()))
    needed: set[str] = set()
    missing: set[str] = set()
    for key, entity, at in required_text_keys(pack):
        if key in needed:  # asked for twice (a part of the score the pack also declares a message)
            continue
        needed.add(key)
        if key not in messages:
            missing.add(key)
            where = _needed_at(pack, entity, at, english)
            said = f"no English text `{key}`: add `{key}: ...` under `messages:` in {_text_file(pack, where)}"
            yield Problem("TEXT-MISSING", said, where)
    for layer in [pack, *pack.overlays]:  # each text file, where its texts are written
        doc = layer.text.get("en")
        own = layer.own_messages("en")
        if doc is None:
            continue
        for key in own:
            if key not in needed and not _is_optional_key(key, declared) and not key.startswith(undeclared):
                guess = where_text_belongs(key, pack)
                yield Problem(
                    "TEXT-UNKNOWN",
                    f"text `{key}` belongs to nothing in the pack"
                    + (f": {guess}" if guess else "")
                    + suggest(key, missing),
                    doc.location(("messages", key), key=True),
                )
        yield from _check_placeholders(doc, own, declared)
        yield from file_form_problems(doc, layer.entries("en"), pack_forms(pack, "en"))


def check_engine_texts() -> Iterator[Problem]:
    """coh's own texts (`coh_core/text`), as a pack's are checked: each English text words a
    message the engine declares, with exactly its placeholders; each translation has every
    English text, current and sound."""
    pack = engine_pack()
    if pack is None:
        yield Problem("TEXT-MISSING", "coh has no English text of its own", Location("coh_core/text/en.yaml"))
        return
    declared = messages_of(pack, Declarations())
    english = pack.text[SOURCE_LOCALE]
    own = pack.own_messages(SOURCE_LOCALE)
    for key in own:
        if key not in declared.texts:
            yield Problem(
                "TEXT-UNKNOWN",
                f"text `{key}` is no message the engine declares" + suggest(key, declared.texts),
                english.location(("messages", key), key=True),
            )
    yield from _check_placeholders(english, own, declared)
    for locale in pack.text:
        if locale != SOURCE_LOCALE:
            yield from check_locale(pack, locale, declared).problems


def _needed_at(pack: Pack, entity: Entity | None, at: Path_, english: YamlDoc) -> Location:
    """Where a missing text is needed: its entity, its phase or step, or the pack's manifest."""
    if entity is not None:
        return entity.doc.location((*entity.path, "id"))
    if at[:1] in (("turn",), (RESULT_SECTION,)) and at[0] in pack.sections:
        return pack.sections[str(at[0])].doc.location(at)
    if at[:1] in (("messages",), ("traits",), ("windows",), ("types",)) and at[0] in pack.sections:
        return pack.sections[str(at[0])].doc.location(at, key=True)
    if at[:1] == ("pack",):
        layer = next((o for o in pack.overlays if o.id == at[1]), pack)
        return layer.manifest_doc.location(("id",))
    return english.location(("messages",))


def _text_file(pack: Pack, where: Location) -> str:
    """The English text file of the pack or overlay whose file `where` is in (the one a text
    needed there goes in), as the loader names it; the manifest's folder's when none is."""
    for layer in reversed([pack, *pack.overlays]):
        folder = PurePath(layer.manifest_doc.path).parent
        if folder in PurePath(where.file).parents:
            doc = layer.text.get(SOURCE_LOCALE)
            return doc.path if doc is not None else str(folder / TEXT_DIR / f"{SOURCE_LOCALE}.yaml")
    doc = pack.text.get(SOURCE_LOCALE)
    return doc.path if doc is not None else f"{TEXT_DIR}/{SOURCE_LOCALE}.yaml"


def _check_placeholders(
    english: YamlDoc, messages: dict[str, Any], declared: DeclaredMessages
) -> Iterator[Problem]:
    """Declared messages (the pack's and the engine's) use exactly their declared placeholders.

    A text with plural forms must depend on a number, and any one form may leave it out
    ("one card"); the forms together use every placeholder.
    """
    for key, text in messages.items():
        yield from _check_english_plural(english, key, text, declared)
        message = declared.texts.get(key)
        if message is None or not english.is_valid(("messages", key)):
            continue
        wanted = message.params
        used = [name for form in text_forms(text) for name in placeholders(form)]
        optional = {message.plural} if isinstance(text, dict) else set()
        unknown = sorted(set(used) - set(wanted))
        lacking = [name for name in wanted if name not in used and name not in optional]
        if not (unknown or lacking):
            continue
        faults = []
        if unknown:
            faults.append("uses unknown " + _braced(unknown))
        if lacking:
            faults.append("lacks " + _braced(lacking))
        allowed = f"the placeholders {_braced(wanted)}" if wanted else "no placeholders"
        hint = suggest(unknown[0], lacking) if unknown else ""
        yield Problem(
            "TEXT-PLACEHOLDER",
            f"text `{key}` must use {allowed}, but {' and '.join(faults)}{hint}",
            english.location(("messages", key)),
        )


def _check_english_plural(
    english: YamlDoc, key: str, text: Any, declared: DeclaredMessages
) -> Iterator[Problem]:
    if not isinstance(text, dict) or not english.is_valid(("messages", key)):
        return
    yield from plural_problems(english, key, text, SOURCE_LOCALE, ("messages", key))
    number = declared.plural_param(key)
    if key in declared.texts and number not in declared.texts[key].params:
        yield Problem(
            "I18N-PLURAL",
            f"`{key}` has plural forms but no number to pick one by (no {{{number}}})",
            english.location(("messages", key), key=True),
        )


def _check_translations(pack: Pack) -> Iterator[Problem]:
    """Every other language against the English (see coh_core.packs.i18n_check).

    Missing entries are summed up in one problem per language (`coh i18n check` lists them
    one by one); everything else wrong in a translation is reported where it is. While the
    English itself has problems the translations are not compared with it: the source first.
    """
    if SOURCE_LOCALE not in pack.text or not pack.complete:
        return
    for report in check_translations(pack):
        missing = [p for p in report.problems if p.code == "I18N-MISSING"]
        stale = [p for p in report.problems if p.code == "I18N-STALE"]
        yield from (
            p
            for p in report.problems
            if (p.code != "I18N-MISSING" or len(missing) == 1) and (p.code != "I18N-STALE" or len(stale) == 1)
        )
        if len(missing) > 1:
            yield Problem(
                "I18N-MISSING",
                f"{len(missing)} of {report.total} English texts of `{report.pack}` have no"
                f" {report.locale} text yet ({report.coverage:.0f}% translated);"
                f" `coh i18n check --lang {report.locale}` lists them",
                report.where,
            )
        if len(stale) > 1:
            yield Problem(
                "I18N-STALE",
                f"{len(stale)} {report.locale} texts of `{report.pack}` translate an older English"
                f" ({report.coverage:.0f}% translated); `coh i18n check --lang {report.locale}` lists them",
                report.where,
            )


def _braced(names: Iterable[str]) -> str:
    return ", ".join(f"{{{name}}}" for name in names)


def _is_optional_key(key: str, declared: DeclaredMessages) -> bool:
    # The engine's texts are known to every pack: a pack's text for one rewords it.
    return (key.startswith("pack.") and key.endswith(".summary")) or key in declared.texts


# Checks of single entities, meaningful even when part of the pack failed to load.
_ENTITY_CHECKS: list[Callable[[Pack], Iterator[Problem]]] = [
    check_declarations,
    check_references,
    check_trigger_ids,
    _check_params,
    _check_verbs,
    _check_messages,
    _check_locations,
    check_kinds,
    check_kind_fields,
    check_section_fields,
    check_entity_rules,
    _check_flips,
    _check_turn,
]
# Checks across files: totals, references between sections, text coverage.
_PACK_CHECKS: list[Callable[[Pack], Iterator[Problem]]] = [
    _check_sections,
    _check_components,
    _check_setup,
    check_kind_names,
    check_pack_rules,
    check_result,
    check_answer_values,
    check_bots,
    _check_texts,
]
