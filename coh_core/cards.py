"""Localized card data: every entity of a pack, as the rules in force make it, with its texts in a
language and where each text came from.

This is what card databases, printing tools and web pages need, without the engine:

    from coh_core.cards import load_cards

    cards = load_cards(rules=["rulebook-fr"], lang="fr-CA")  # the base game by default
    for card in cards.of_kind(cards.kinds()[0]):
        print(card.id, card.name.text, card.name.lang)  # lang: "fr", or "en" by fallback

A text is looked up along the fallback chain of `coh_core.i18n.fallback_chain` (`fr-CA` ->
`fr` -> `en`); each one says which language and which pack's file it came from. A translation
counts only if it belongs to the pack that wrote the English text in force, or to one applied
after it: where an overlay rewrote a text in English only, the export gives its English rather
than the base game's translation of the text it replaced. `coh export` writes a `CardSet` as
JSON (`schemas/export.schema.json`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from coh_core.errors import UsageError
from coh_core.i18n import SOURCE_LOCALE, Text, fallback_chain, normalize_locale, source_hash
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Entity, Pack
from coh_core.packs.yamlsrc import Path_, YamlDoc

EXPORT_FORMAT = 1  # the version of the JSON document `CardSet.to_json` writes
NAME = "name"  # the text of an entity that is its name: `<kind>.<id>.name`


@dataclass(frozen=True)
class LocalizedText:
    """One text in the language asked for, or in the one it fell back to."""

    text: Text  # a string, or its plural forms by CLDR category
    lang: str  # the language it is in: the one asked for, a step of its fallback chain, or `en`
    pack: str  # the pack whose text file holds it
    # A translation made from another English text than the one in force (`coh i18n check`
    # reports it stale); never true for English.
    stale: bool = False

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"text": self.text, "lang": self.lang, "pack": self.pack}
        if self.stale:
            document["stale"] = True
        return document


@dataclass(frozen=True)
class EffectSource:
    """An effect or condition of an entity, as its pack writes it in the effect language."""

    at: str  # where in the entity's data, as a patch names it (`power/effect`)
    entry: str  # "effect" or "condition"
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "entry": self.entry, "source": self.source}


@dataclass(frozen=True)
class Card:
    """One entity of the rules in force: its data after overlays, its name and its texts."""

    kind: str
    id: str
    data: dict[str, Any]  # numbers, flags, lists... as the overlays left them (effects included)
    packs: list[str]  # the packs that wrote its values, the one that defines it first
    name: LocalizedText | None  # None if the pack gives it no name
    texts: dict[str, LocalizedText]  # every other text, by what follows `<kind>.<id>.` in its key
    effects: list[EffectSource] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "packs": self.packs,
            "name": None if self.name is None else self.name.to_json(),
            "texts": {key: text.to_json() for key, text in self.texts.items()},
            "data": self.data,
            "effects": [effect.to_json() for effect in self.effects],
        }


@dataclass(frozen=True)
class PackInfo:
    """A pack in force (the game, or an overlay on it): its id, version and texts."""

    id: str
    version: str
    kind: str
    texts: dict[str, LocalizedText]  # `name`, `summary`...: its `pack.<id>.*` texts

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "version": self.version,
            "kind": self.kind,
            "texts": {key: text.to_json() for key, text in self.texts.items()},
        }


@dataclass(frozen=True)
class CardSet:
    """Every entity of a pack under some rules, in one language."""

    lang: str
    fallback: list[str]  # where texts were looked up, the language asked for first
    pack: PackInfo
    rules: list[PackInfo]  # the overlays in force, in the order they were applied
    cards: list[Card]

    def kinds(self) -> list[str]:
        """The kinds of entity the pack has, in the order of the pack."""
        return list(dict.fromkeys(card.kind for card in self.cards))

    def of_kind(self, kind: str) -> list[Card]:
        return [card for card in self.cards if card.kind == kind]

    def ids(self, kind: str) -> list[str]:
        return [card.id for card in self.of_kind(kind)]

    def get(self, kind: str, entity_id: str) -> Card | None:
        return next((c for c in self.cards if c.kind == kind and c.id == entity_id), None)

    def to_json(self) -> dict[str, Any]:
        """The document `coh export` writes (`schemas/export.schema.json`)."""
        return {
            "coh_export": EXPORT_FORMAT,
            "lang": self.lang,
            "fallback": self.fallback,
            "pack": self.pack.to_json(),
            "rules": [overlay.to_json() for overlay in self.rules],
            "entities": [card.to_json() for card in self.cards],
        }


def load_cards(
    pack_dir: Path | str | None = None, rules: Sequence[str] = (), lang: str = SOURCE_LOCALE
) -> CardSet:
    """Load a pack (the built-in base game by default) under the overlays in `rules` (shipped ids or
    directories) and give every entity in `lang`.

    Raises ContentError (every located problem) for a pack that is not valid, UsageError
    (`I18N-LANG`) for a language code that is none or that the pack has no text in, and
    UsageError for overlays that cannot be played together.
    """
    pack = load_pack_checked(Path(pack_dir) if pack_dir is not None else None, rules)
    return localize(pack, lang)


def localize(pack: Pack, lang: str, known_only: bool = True) -> CardSet:
    """Every entity of an already loaded pack (overlays applied) in `lang`.

    With `known_only` (the default) a language the pack has no text in is refused, as in
    `checked_locale`; without it (a language taken from the environment, as the command line
    does) every text is in English, and says so.
    """
    locale = checked_locale(pack, lang) if known_only else _normalized(lang)
    texts = _Texts(pack, locale)
    return CardSet(
        lang=locale,
        fallback=texts.chain,
        pack=_pack_info(pack, texts),
        rules=[_pack_info(overlay, texts) for overlay in pack.overlays],
        cards=[_card(pack, entity, texts) for by_id in pack.entities.values() for entity in by_id.values()],
    )


def localized_text(pack: Pack, key: str, lang: str) -> LocalizedText | None:
    """One text of the pack (`<kind>.<id>.<what>`) in `lang`, or None if English has no such text."""
    return _Texts(pack, checked_locale(pack, lang)).get(key)


def checked_locale(pack: Pack, lang: str) -> str:
    """`lang` as coh writes locales (`fr_ca` -> `fr-CA`); UsageError if it is no language code or
    the pack has no text in it nor in its language (English and regional English always do)."""
    locale = _normalized(lang)
    if locale.split("-")[0] != SOURCE_LOCALE and not any(s in pack.text for s in fallback_chain(locale)[:-1]):
        known = ", ".join(pack.locales())
        raise UsageError(f"pack `{pack.id}` has no text in `{locale}` (it has {known})", code="I18N-LANG")
    return locale


def _normalized(lang: str) -> str:
    locale = normalize_locale(lang)
    if locale is None:
        raise UsageError(f"`{lang}` is not a language code such as en, fr or pt-BR", code="I18N-LANG")
    return locale


class _Texts:
    """The texts of a pack and its overlays, each looked up once per language and pack."""

    def __init__(self, pack: Pack, locale: str) -> None:
        self.layers = [pack, *pack.overlays]  # in the order they apply: the last one wins
        self.chain = fallback_chain(locale)
        self.own = {
            (index, step): layer.own_messages(step)
            for index, layer in enumerate(self.layers)
            for step in self.chain
        }
        self.english_keys = sorted(
            {key for index in range(len(self.layers)) for key in self._own(index, SOURCE_LOCALE)}
        )

    def _own(self, index: int, step: str) -> dict[str, Any]:
        return self.own[(index, step)]

    def with_prefix(self, prefix: str) -> Iterator[tuple[str, LocalizedText]]:
        """Every text whose key starts with `prefix`, by the rest of its key."""
        for key in self.english_keys:
            if key.startswith(prefix):
                found = self.get(key)
                if found is not None:
                    yield key[len(prefix) :], found

    def get(self, key: str) -> LocalizedText | None:
        owner = self._english_owner(key)
        if owner is None:
            return None
        english = self._own(owner, SOURCE_LOCALE)[key]
        for step in self.chain:
            # A translation older than the English in force (one of a pack before its owner) is not it.
            for index in range(len(self.layers) - 1, owner - 1, -1):
                text = self._own(index, step).get(key)
                if _usable(text):
                    layer = self.layers[index]
                    return LocalizedText(text, step, layer.id, _stale(layer, step, key, english))
        return None  # English has it but unusable (empty): the schema and checks report it

    def _english_owner(self, key: str) -> int | None:
        """The index of the last layer that writes the key's English: its text is in force."""
        return next(
            (i for i in range(len(self.layers) - 1, -1, -1) if key in self._own(i, SOURCE_LOCALE)), None
        )


def _usable(text: Any) -> TypeGuard[Text]:
    """A text worth giving: a non-empty string, or plural forms with a non-empty `other`."""
    if isinstance(text, str):
        return bool(text)
    return isinstance(text, dict) and isinstance(text.get("other"), str) and bool(text["other"])


def _stale(layer: Pack, step: str, key: str, english: Any) -> bool:
    if step == SOURCE_LOCALE:
        return False
    entry = layer.entries(step).get(key)
    source = entry.get("source") if isinstance(entry, dict) else None
    return source is not None and source != source_hash(english)


def _pack_info(pack: Pack, texts: _Texts) -> PackInfo:
    version, kind = pack.manifest.get("version"), pack.manifest.get("kind")
    return PackInfo(
        id=pack.id,
        version=str(version) if version is not None else "",
        kind=str(kind) if kind is not None else "",
        texts=dict(texts.with_prefix(f"pack.{pack.id}.")),
    )


def _card(pack: Pack, entity: Entity, texts: _Texts) -> Card:
    own = dict(texts.with_prefix(f"{entity.kind}.{entity.id}."))
    name = own.pop(NAME, None)
    return Card(
        kind=entity.kind,
        id=entity.id,
        data=_plain(entity.data),
        packs=list(dict.fromkeys(_writers(entity.doc, entity.path, entity.data))),
        name=name,
        texts=own,
        effects=_effects(pack, entity),
    )


def _writers(doc: YamlDoc, path: Path_, value: Any) -> Iterator[str]:
    """The pack of every value below `path`, the entity's own mapping first (see ComposedDoc)."""
    yield doc.origin(path)[0].owner
    children: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    for key, item in children:
        yield from _writers(doc, (*path, key), item)


def _effects(pack: Pack, entity: Entity) -> list[EffectSource]:
    size = len(entity.path)
    return [
        EffectSource("/".join(str(p) for p in c.slot.path[size:]), c.slot.entry, c.slot.source)
        for c in pack.effects
        if c.slot.doc is entity.doc and c.slot.path[:size] == entity.path
    ]


def _plain(value: Any) -> Any:
    """Data as JSON has it: mappings with string keys, lists, strings, numbers, booleans, null."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
