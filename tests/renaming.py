"""A copy of a pack in which every id the pack defines has another name (issue 11's renaming test).

`rename_pack(source, target)` writes a copy of the pack at `source` into `target` where each id the
pack defines is replaced, everywhere it is defined or referred to, by a new name that says nothing of
the game: `id017_location`. What is renamed:

- the entities: characters, action cards, locations, invasion cards and colours (`pack.entities`),
  with the sides and states of each location (`A`, `B`, `collapsed`...), and their kinds;
- the turn structure's phases and steps (`turn.setup`, `turn.phases` and their `steps`, `turn.end`),
  and the tie-breaks of the result (`result.tie_breaks`);
- the component kinds the pack declares: its kinds of counters (zombies, antidotes, explosion
  markers...), the places it names (the reserve, the box), its piles (the deck, the hands, the
  food tokens...), its pointers (the first player, the leader), what the game remembers
  (`memory`: the movement cards chosen...) and its kinds of pieces (`pieces`: the characters);
- every reference to them: ids in the content (`state_of`, the leader wheel, the movement cards,
  the board's locations and sides, the overflow location), `@id` references and the bare names given
  for parameters of type `side`, `counter`, `place`, `pile`, `pointer` or `memory` in effect
  text, and the keys of the text files (`character.<id>.name`, `location.<id>.<side>.effect`,
  `step.<phase>.<step>.name`, `tie_break.<id>.name`...), in every language.

Effect text is parsed (`coh_core.effects.parser`) and only the nodes that name an id are rewritten,
at their source spans: an `@id` reference, and a bare name given for a parameter of type `side`,
`counter`, `place` or `pile`
(`flip_board(here, collapsed)`). Nothing is replaced as a substring. The YAML files are rewritten from
their loaded data, so comments (prose about the game) are not copied.

The new names keep the order of the old ones: the distinct old names, sorted, become `id000_<kind>`,
`id001_<kind>`... in that order, across all kinds. The engine sorts ids where an order is needed and
the pack gives none (the characters dealt, the deck built, the cards in a hand, the options of a
choice); a renaming that changed the order would change the games for that reason alone, which
says nothing about whether the engine knows the names. With the order kept, the renamed pack must
play exactly the games of the original.

What is not renamed yet, and why:

- The name a counter has as an item (`antidote`): message keys are made of it (`give.antidote`,
  `item.antidote`), and text keys of messages are not renamed (below).
- A pile's `role` and `start` (a key of the components) and the lists of the components (the
  leader wheel...): words of the format.
- The sections that list entities (`characters`, `invasions`...): the content schema names them.
  The kinds themselves are renamed (`character` -> `kind00_renamed`...), in the `kinds` section,
  in the kinds of pieces (`of`) and in the text keys of their entities: the engine finds a kind
  by what it declares (its type, its fields' roles), never by its name.
- The words of the effect language the pack declares (its enumerations and their values, traits,
  events, windows) and its rule parameters: the engine still gives some events and windows their
  names and reads some traits itself (`ENGINE-DECLARATION`).
- Verbs: the built-in ones are the registry's; those the base pack defines (its procedures, in
  `procedures-*.yaml`, and its selectors named after its counters, `zombies(at)`) are words of its
  effect language, as its enumerations are.
- Location slots (`tower`, `corner`, `centre`), card symbols (`explosion`), `attack_victim` values and
  trigger timings: enumerations of the schema, that is of the engine.
- Message ids (`log.*`, `ui.*`): keys of text, not ids of the game; except the table's texts of
  the pack's components (`messages: table`, `ui.table.count.<counter>`...), which name them.
- The pack's own id (`base`): the name of the pack, not of anything in the game.
- Prose: the texts of every language, docs and notes are copied as they are.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from coh_core.effects import ast
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.effects.registry import Signature, element_type, signature
from coh_core.packs import load_pack_checked, yaml_traps
from coh_core.packs.declarations import declarations_of
from coh_core.packs.effects_index import effect_slots, pack_verbs
from coh_core.packs.model import Pack
from coh_core.packs.yamlsrc import Path_, YamlDoc

# The kinds of entities the engine still reads by name: none. Every kind is renamed (`_rename_kinds`).
ENGINE_KINDS: frozenset[str] = frozenset()
# Text keys that belong to an entity: `<prefix>.<id>.<field>`, and for locations
# `location.<id>.<side>.<field>`; steps are `step.<phase, or setup or end>.<step>.name`.
ENTITY_TEXT_PREFIXES = ("character", "action", "location", "invasion", "colour", "phase", "tie_break")
STEP_TEXT_PREFIX = "step"


@dataclass(frozen=True)
class Renaming:
    """A renamed copy of a pack: where it is, and each old name's new name and kind."""

    root: Path
    names: Mapping[str, str]  # old name -> new name
    kinds: Mapping[str, str]  # old name -> what it names (location, side, step...)
    # the pack's kinds of entities renamed: old kind -> new kind (`invasion` -> `kind00_renamed`)
    kind_names: Mapping[str, str]


def rename_pack(source: Path, target: Path) -> Renaming:
    """Write the pack at `source`, with every id renamed, into the directory `target`."""
    pack = load_pack_checked(source)
    # a word that is both a step and a kind of counter (`zombies`) gets one new name, of the step
    kinds = {**_component_kinds(pack), **_defined_ids(pack)}
    names = {old: f"id{n:03d}_{kinds[old]}" for n, old in enumerate(sorted(kinds))}
    kind_names = {
        kind: f"kind{n:02d}_renamed"
        for n, kind in enumerate(k for k in pack.entity_kinds() if k not in ENGINE_KINDS)
    }
    effects = _renamed_effects(pack, names)
    target.mkdir(parents=True, exist_ok=True)
    _write(target, pack.manifest_doc, pack, copy.deepcopy(pack.manifest_doc.data))
    for doc in pack.docs:
        data = copy.deepcopy(doc.data)
        for path, text in effects.get(id(doc), {}).items():
            _set(data, path, text)
        _rename_content(data, names)
        _rename_kinds(data, kind_names)
        _write(target, doc, pack, data)
    for doc in pack.text.values():
        _write(target, doc, pack, _rename_text(doc.data, names, kind_names))
    return Renaming(target, names, kinds, kind_names)


# --- what is renamed ---------------------------------------------------------------------------


def _defined_ids(pack: Pack) -> dict[str, str]:
    """Every id the pack defines, with its kind: entities, location sides, phases and steps, and
    the tie-breaks of its result."""
    found: dict[str, str] = {}
    for kind, by_id in pack.entities.items():
        if kind != "verb":  # words of the pack's language, as the built-in verbs are (see the module doc)
            found.update(dict.fromkeys(by_id, kind))
    for location in pack.entities_of("location"):
        found.update(dict.fromkeys((str(side["side"]) for side in location.data["sides"]), "side"))
    turn = pack.section("turn")
    for section in ("setup", "end"):
        found.update(dict.fromkeys((str(step["id"]) for step in turn.get(section, [])), "step"))
    for phase in turn.get("phases", []):
        found[str(phase["id"])] = "phase"
        found.update(dict.fromkeys((str(step["id"]) for step in phase["steps"]), "step"))
    found.update(
        dict.fromkeys((str(t["id"]) for t in pack.section("result").get("tie_breaks", [])), "tie_break")
    )
    return found


def _component_kinds(pack: Pack) -> dict[str, str]:
    """The component kinds the pack declares: its kinds of counters (zombies, antidotes...), the
    places it names (the reserve, the box), its piles, pointers, memory and kinds of pieces. Not yet
    the names counters have as items (`antidote`): message keys are made of them (`answers:
    give.antidote`, `parts: item.antidote`)."""
    components = pack.section("components")
    return {
        **dict.fromkeys(map(str, components.get("places", {})), "place"),
        **dict.fromkeys(map(str, components.get("counters", {})), "counter"),
        **dict.fromkeys(map(str, components.get("piles", {})), "pile"),
        **dict.fromkeys(map(str, components.get("pointers", {})), "pointer"),
        **dict.fromkeys(map(str, components.get("memory", {})), "memory"),
        **dict.fromkeys(map(str, components.get("pieces", {})), "piece"),
    }


# --- content -----------------------------------------------------------------------------------


def _rename_content(data: dict[str, Any], names: Mapping[str, str]) -> None:
    """Rename, in place, the ids a content file defines and refers to outside effect text."""

    def new(old: Any) -> Any:
        return names.get(old, old) if isinstance(old, str) else old

    for section in ("characters", "actions", "locations", "invasions"):
        for entity in data.get(section, []):
            entity["id"] = new(entity["id"])
    for location in data.get("locations", []):
        for side in location["sides"]:
            side["side"] = new(side["side"])
            if "state_of" in side:
                side["state_of"] = [new(s) for s in side["state_of"]]
    components = data.get("components", {})
    for key in ("colours", "leader_wheel", "movement_cards"):
        if key in components:
            components[key] = [new(v) for v in components[key]]
    if "places" in components:
        components["places"] = {new(place): doc for place, doc in components["places"].items()}
    if "counters" in components:
        components["counters"] = {
            new(kind): _counter(entry, new) for kind, entry in components["counters"].items()
        }
    if "piles" in components:
        components["piles"] = {new(name): entry for name, entry in components["piles"].items()}
    if "pointers" in components:
        components["pointers"] = {new(name): entry for name, entry in components["pointers"].items()}
    if "memory" in components:
        components["memory"] = {new(name): entry for name, entry in components["memory"].items()}
    if "pieces" in components:
        components["pieces"] = {new(name): entry for name, entry in components["pieces"].items()}
    table = data.get("messages", {}).get("table")
    if table:
        data["messages"]["table"] = {_table_id(key, names): entry for key, entry in table.items()}
    setup = data.get("setup", {})
    if "overflow_location" in setup:
        setup["overflow_location"] = new(setup["overflow_location"])
    board = setup.get("board", {})
    if "locations" in board:
        board["locations"] = [new(c) for c in board["locations"]]
    if "sides" in board:
        board["sides"] = {new(loc): new(side) for loc, side in board["sides"].items()}
    for tie_break in data.get("result", {}).get("tie_breaks", []):
        tie_break["id"] = new(tie_break["id"])
    turn = data.get("turn", {})
    for step in [*turn.get("setup", []), *turn.get("end", [])]:
        step["id"] = new(step["id"])
    for phase in turn.get("phases", []):
        phase["id"] = new(phase["id"])
        for step in phase["steps"]:
            step["id"] = new(step["id"])


def _counter(entry: dict[str, Any], new: Any) -> dict[str, Any]:
    return {key: new(value) if key in ("at", "item") else value for key, value in entry.items()}


def _set(data: Any, path: Path_, value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


# --- effect text -------------------------------------------------------------------------------


def _renamed_effects(pack: Pack, names: Mapping[str, str]) -> dict[int, dict[Path_, str]]:
    """The rewritten text of every effect that names an id, by document (its `id`) and path."""
    verbs = pack_verbs(pack, declarations_of(pack))
    found: dict[int, dict[Path_, str]] = {}
    for slot in effect_slots(pack):
        tree: ast.Node = parse_effect(slot.source) if slot.entry == "effect" else parse_condition(slot.source)
        edits = sorted(_edits(tree, names, verbs), key=lambda edit: edit[0].start, reverse=True)
        text = slot.source
        for span, replacement in edits:
            text = text[: span.start] + replacement + text[span.end :]
        if edits:
            found.setdefault(id(slot.doc), {})[slot.path] = text
    return found


def _edits(
    tree: ast.Node, names: Mapping[str, str], verbs: Mapping[str, Signature]
) -> Iterator[tuple[ast.Span, str]]:
    """(span, new text) for every `@id` reference and every bare name given to a parameter of a type
    the pack's names make: a side, a kind of counter, a place."""
    stack: list[ast.Node] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(ast.children(node))
        if isinstance(node, ast.Ref) and node.id in names:
            yield node.span, f"@{names[node.id]}"
        if isinstance(node, ast.Call):
            for arg, type_name in _typed_args(node, verbs.get(node.name) or signature(node.name)):
                if type_name in _NAMED_TYPES or element_type(type_name) in _NAMED_TYPES:
                    yield from _side_names(arg.value, names)


# Types whose values are bare names the pack defines (`flip_board(here, burnt)`, `count_of(zombies, at)`).
_NAMED_TYPES = frozenset({"side", "counter", "place", "pile", "pointer", "memory"})


def _typed_args(call: ast.Call, sig: Signature | None) -> Iterator[tuple[ast.Arg, str]]:
    """Each argument of a call with the type of the parameter it is given for (if known)."""
    if sig is None:
        return
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            param = sig.param(arg.keyword)
        else:
            param = sig.params[index] if index < len(sig.params) else None
        if param is not None:
            yield arg, param.type


def _side_names(value: ast.Expr, names: Mapping[str, str]) -> Iterator[tuple[ast.Span, str]]:
    items = value.items if isinstance(value, ast.ListLit) else (value,)
    for item in items:
        if isinstance(item, ast.Name) and item.name in names:
            yield item.span, names[item.name]


# --- text --------------------------------------------------------------------------------------


def _rename_text(
    data: dict[str, Any], names: Mapping[str, str], kind_names: Mapping[str, str]
) -> dict[str, Any]:
    """A text file with the ids and kinds in its keys renamed (the texts, in any language, stay)."""
    renamed = copy.deepcopy(data)
    renamed["messages"] = {
        _kind_key(text_key(key, names), kind_names): value for key, value in data["messages"].items()
    }
    return renamed


# The table's texts of components (`messages: table`): `<what>.<component>`.
_TABLE_TEXTS = (
    "pointer.",
    "count.",
    "pile.",
    "own.pile.",
    "own.count.",
    "own.memory.",
    "others.pile.",
    "total.",
    "trait.",
)


def _table_id(key: str, names: Mapping[str, str]) -> str:
    """A `table` message's id with the component it shows renamed: `count.zombies` -> `count.id0..`."""
    if key.startswith("fires."):  # fires.<location>.<side>.<counter>: every part is an id
        return ".".join(["fires", *(names.get(p, p) for p in key.split(".")[1:])])
    if not key.startswith(_TABLE_TEXTS):
        return key
    what, _, name = key.rpartition(".")
    return f"{what}.{names.get(name, name)}"


def _kind_key(key: str, kind_names: Mapping[str, str]) -> str:
    """A text key of an entity (`<kind>.<id>.<text>`) with its kind renamed."""
    kind, dot, rest = key.partition(".")
    return f"{kind_names[kind]}{dot}{rest}" if kind in kind_names else key


def _rename_kinds(data: dict[str, Any], kind_names: Mapping[str, str]) -> None:
    """Rename, in place, the kinds the `kinds` section declares (their labels are text keys: kept)."""
    if isinstance(data.get("kinds"), dict):
        data["kinds"] = {kind_names.get(kind, kind): entry for kind, entry in data["kinds"].items()}
    for entry in (data.get("components", {}).get("pieces") or {}).values():
        entry["of"] = kind_names.get(entry["of"], entry["of"])


def text_key(key: str, names: Mapping[str, str]) -> str:
    """A text key with the ids it is made of renamed: `location.church.A.name` -> `location.id0..`."""
    if key.startswith("ui.table."):
        return "ui.table." + _table_id(key.removeprefix("ui.table."), names)
    parts = key.split(".")
    if parts[0] in ENTITY_TEXT_PREFIXES:
        # <prefix>.<id>.<field>, or location.<id>.<side>.<field>
        ids = parts[1:3] if parts[0] == "location" and len(parts) == 4 else parts[1:2]
    elif parts[0] == STEP_TEXT_PREFIX:
        ids = parts[1:3]  # step.<phase or setup or end>.<step>.name
    else:
        return key  # messages (`log.*`, `ui.*`) and the pack's own texts: no ids of the game
    count = 1 + len(ids)
    return ".".join([parts[0], *(names.get(p, p) for p in parts[1:count]), *parts[count:]])


# --- files -------------------------------------------------------------------------------------


def _write(target: Path, doc: YamlDoc, pack: Pack, data: Any) -> None:
    relative = Path(doc.path).resolve().relative_to(pack.root.resolve())
    path = target / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)
    path.write_text(text, encoding="utf-8")


class _Dumper(yaml_traps.Dumper):
    """Safe YAML that writes effects of several lines as blocks (`|`), as the pack does, and
    quotes the strings that would be YAML 1.1 traps written plain."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else ('"' if yaml_traps.trap_of(value) is not None else None)
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


# --- checking a renaming -----------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z0-9_]+")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the same data, read faster with libyaml
# Fields whose string values are prose for people (docs, notes, summaries), not names.
PROSE_KEYS = frozenset({"doc", "note", "summary"})


def surviving_names(root: Path, old_names: Iterable[str], files: Iterable[Path]) -> dict[str, list[str]]:
    """Where each old name still occurs as a whole word in the renamed pack, prose left out.

    Every key, every string value and every word of effect text is looked at, in every file of
    the pack; texts in a language, docs, notes and summaries are prose and are not.
    """
    old = set(old_names)
    found: dict[str, list[str]] = {}
    for path in files:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
        text_file = path.parent.name == "text"
        for where, word in _words(data, (), text_file):
            if word in old:
                found.setdefault(word, []).append(f"{path.relative_to(root)}: {'/'.join(map(str, where))}")
    return found


def _words(data: Any, path: Path_, text_file: bool) -> Iterator[tuple[Path_, str]]:
    if _is_prose(path, text_file):
        return
    if isinstance(data, dict):
        for key, value in data.items():
            for word in WORD.findall(str(key)):
                yield (*path, key), word
            yield from _words(value, (*path, key), text_file)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _words(value, (*path, index), text_file)
    elif isinstance(data, str):
        for word in WORD.findall(data):
            yield path, word


def _is_prose(path: Path_, text_file: bool) -> bool:
    if text_file:  # messages/<key>: a text, its plural forms, or a translation entry
        return len(path) >= 2 and path[0] == "messages"
    if path and path[-1] in PROSE_KEYS:
        return True
    # types/<type>/values/<value>: what the value means; messages/<group>/<id>/params/<name>: ditto,
    # and so are the notes of what a log entry carries and of its variants
    if len(path) == 4 and path[0] == "types" and path[2] == "values":
        return True
    return len(path) == 5 and path[0] == "messages" and path[3] in ("params", "carries", "variants")
