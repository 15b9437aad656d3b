"""The loaded form of a content pack: entities, singleton sections, text and compiled effects."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coh_core.effects import ast
from coh_core.i18n import SOURCE_LOCALE, forms_of, source_text
from coh_core.packs.yamlsrc import Path_, YamlDoc

# The engine's own kinds of entities, by the section that lists them: the verbs a pack defines.
# Every other kind is declared by the pack (its `kinds` section: see `Pack.entity_kinds`).
ENGINE_SECTIONS: dict[str, str] = {"verbs": "verb"}
KINDS_SECTION = "kinds"
# The fields a pack adds to the sections every pack has (`setup`, `components`), and the columns
# of its table by number of players: optional, as is every field it declares.
SECTION_FIELDS = "section_fields"
# What a game comes to: a ranking, a team's win or loss, or both (see coh_core.packs.results);
# a pack that declares none sets no result.
RESULT_SECTION = "result"
# What a pack tells the shipped bots about its game (see coh_core.packs.bot_hints).
BOTS_SECTION = "bots"
# a game may use the engine's roles as contexts, set no result and give bots no hints
OPTIONAL_SECTIONS = (SECTION_FIELDS, "contexts", RESULT_SECTION, BOTS_SECTION)
# `setup`'s board: every place (an entity of a kind whose ids are locations) once, in the board's
# order (`locations`), and the side each starts on (`sides`).
BOARD = "board"
# Sections that appear once per pack (`types` to `windows`: see coh_core.packs.declarations).
SINGLETON_SECTIONS = (
    "components",
    "setup",
    "turn",
    "params",
    "messages",
    KINDS_SECTION,
    SECTION_FIELDS,
    "types",
    "traits",
    "events",
    "windows",
    "contexts",
    RESULT_SECTION,
    BOTS_SECTION,
)


@dataclass(frozen=True)
class Entity:
    kind: str
    id: str
    data: dict[str, Any]
    doc: YamlDoc
    path: Path_  # where the entity's mapping is in its document

    @property
    def location(self) -> str:
        return str(self.doc.location((*self.path, "id")))


@dataclass(frozen=True)
class Section:
    """A singleton section (components, setup, turn) and where it came from."""

    name: str
    data: dict[str, Any]
    doc: YamlDoc
    path: Path_


@dataclass(frozen=True)
class EffectSlot:
    """One effect or condition text in content, with the context it is checked in."""

    owner: str  # entity id, or the section name
    doc: YamlDoc
    path: Path_
    source: str
    entry: str  # "effect" or "condition"
    context: str
    extra: dict[str, str] = field(default_factory=dict)
    # The window or event is unknown (reported by the schema), so its names are too:
    # unknown names are then not reported again.
    lenient: bool = False


@dataclass(frozen=True)
class CompiledEffect:
    slot: EffectSlot
    tree: ast.Block | ast.Expr


def name_meant(key: str) -> str:
    """The name a key that breaks the naming rule (lower case, words joined by `_`) most likely
    meant: `Speed` `speed`, `TopSpeed` and `top-speed` `top_speed`."""
    return re.sub(r"[-\s]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key.strip())).lower()


@dataclass
class Pack:
    id: str
    root: Path
    manifest: dict[str, Any]
    manifest_doc: YamlDoc
    docs: list[YamlDoc] = field(default_factory=list)
    entities: dict[str, dict[str, Entity]] = field(default_factory=dict)
    sections: dict[str, Section] = field(default_factory=dict)
    text: dict[str, YamlDoc] = field(default_factory=dict)
    effects: list[CompiledEffect] = field(default_factory=list)
    # Listed files that could not be loaded; checks across the whole pack are skipped
    # while any is missing, so one broken file does not cascade into dozens of problems.
    unloaded: list[str] = field(default_factory=list)
    bytes_read: int = 0  # the size of the files loaded so far, against the pack's limit
    # Entities and sections the schema rejected: kept out of every later check (their
    # shape cannot be trusted), but their ids still count as taken.
    rejected: dict[str, Entity] = field(default_factory=dict)
    rejected_sections: list[str] = field(default_factory=list)
    # Entries of a section the schema rejected (a counter, a message, an enumeration...), by their
    # path, as written: left out of the section, whose other entries are checked.
    rejected_entries: dict[Path_, Any] = field(default_factory=dict)
    # Overlays applied to this pack, in order (a composed pack: see coh_core.packs.overlays).
    overlays: list[Pack] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.unloaded or self.rejected or self.rejected_sections or self.rejected_entries)

    def partly_rejected(self, section: str) -> bool:
        """Whether the schema rejected the section, or an entry of it."""
        return section in self.rejected_sections or any(path[0] == section for path in self.rejected_entries)

    def rejected_names(self) -> frozenset[str]:
        """The names that entities and entries the schema rejected declare: their ids, and the
        names written inside an entry (`_names_in`). A use of one is no mistake of its own: the
        problem is reported once, where the entry is."""
        names = set(self.rejected)
        for path, value in self.rejected_entries.items():
            names.update((str(path[-1]), name_meant(str(path[-1]))))  # (`Duration`: `duration` too)
            names.update(_names_in(value))
        return frozenset(names)

    def entities_of(self, kind: str) -> list[Entity]:
        return list(self.entities.get(kind, {}).values())

    def entity(self, entity_id: str) -> Entity | None:
        for by_id in self.entities.values():
            if entity_id in by_id:
                return by_id[entity_id]
        return None

    def section(self, name: str) -> dict[str, Any]:
        found = self.sections.get(name)
        return found.data if found else {}

    def entries(self, locale: str = "en") -> dict[str, Any]:
        """The `messages` of one text file as written: texts (English) or translation entries."""
        doc = self.text.get(locale)
        if doc is None or not isinstance(doc.data, dict):
            return {}
        messages = doc.data.get("messages")
        return messages if isinstance(messages, dict) else {}

    def messages(self, locale: str = "en") -> dict[str, Any]:
        """One language's texts by key (a string, or plural forms): the pack's file, then each
        overlay's on top. A translation counts only if no later overlay rewrote the English it
        translates: an overlay's English-only rewrite shows in English, not as the old rule."""
        found: dict[str, Any] = {}
        for layer in [self, *self.overlays]:
            if locale != SOURCE_LOCALE and layer is not self:
                for key in layer.entries(SOURCE_LOCALE):
                    found.pop(key, None)
            found.update(layer.own_messages(locale))
        return found

    def own_messages(self, locale: str = "en") -> dict[str, Any]:
        """The texts of this pack's own file for the language."""
        entries = self.entries(locale)
        if locale == SOURCE_LOCALE:
            return {k: source_text(v) for k, v in entries.items()}
        return {k: v["text"] for k, v in entries.items() if isinstance(v, dict) and "text" in v}

    def forms(self, locale: str = "en") -> dict[str, dict[str, str]]:
        """One language's grammatical forms of names by key, from the file whose text is used."""
        found: dict[str, dict[str, str]] = {}
        for layer in [self, *self.overlays]:
            found.update({k: forms_of(v) for k, v in layer.entries(locale).items()})
        return found

    @property
    def rules_id(self) -> list[str]:
        """The overlays this pack plays under, in order (empty: the pack's own rules)."""
        return [o.id for o in self.overlays]

    def locales(self) -> list[str]:
        """The languages the pack (or an overlay on it) has text in, English first."""
        found = set(self.text).union(*(o.text for o in self.overlays))
        return sorted(found, key=lambda loc: (loc != SOURCE_LOCALE, loc))

    def kind_declarations(self) -> dict[str, dict[str, Any]]:
        """The pack's declared kinds of entities by name, in declaration order (those the schema
        rejected left out)."""
        found = self.sections.get(KINDS_SECTION)
        if found is None:
            return {}
        return {
            str(name): entry
            for name, entry in found.data.items()
            if isinstance(entry, dict) and found.doc.is_valid((*found.path, name))
        }

    def entity_kinds(self) -> list[str]:
        """The kinds of entities the pack declares, in declaration order (the engine's verbs left out)."""
        return list(self.kind_declarations())

    def entity_sections(self) -> dict[str, str]:
        """Kind by the section that lists its entities: the pack's kinds, and the engine's verbs."""
        declared: dict[str, str] = {}
        for name, entry in self.kind_declarations().items():
            if isinstance(entry.get("section"), str):
                declared.setdefault(str(entry["section"]), name)  # a second claim: KIND-SECTION
        return {**declared, **ENGINE_SECTIONS}

    def ref_types(self) -> dict[str, str]:
        """The type an `@id` of each declared kind has in the effect language."""
        return {name: str(entry["type"]) for name, entry in self.kind_declarations().items()}

    def colours(self) -> list[str]:
        colours = self.section("components").get("colours", [])
        return [c for c in colours if isinstance(c, str)]

    @property
    def effect_count(self) -> int:
        return len(self.effects)

    @property
    def entity_count(self) -> int:
        return sum(len(by_id) for by_id in self.entities.values())

    @property
    def file_count(self) -> int:
        return 1 + len(self.docs) + len(self.text)


def _names_in(value: Any) -> Iterator[str]:
    """Every name written inside a value, at any depth: the keys of its mappings, and the strings
    that are names (an enumeration's values, an event's bound names, a kind's section and type)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _names_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _names_in(inner)
    elif isinstance(value, str) and _NAME.fullmatch(value):
        yield value


_NAME = re.compile(r"[a-z_][a-z0-9_]*")
