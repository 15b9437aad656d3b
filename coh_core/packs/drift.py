"""The drift lint: an entity's text against what it describes (`coh validate`'s TEXT-DRIFT warnings).

A kind's field that declares `text: <name>` is described by the entity's text `<name>` (a
power by `power`, an activation by `effect`). What those fields hold gives the facts a text
should tell: the whole numbers written in them (in an effect or a condition, its literals, and
the value of each rule parameter it reads with `param(name)`), and the entities an effect names
(`@id`). In every language the pack has that text in, the text is then read for the numbers it
states (digits, and number words: coh_core.packs.numerals) and the names of those entities, and
a warning is given where they part:

- the text states a number none of the facts has (`kill 2` over `kill(3)`);
- a number the fields hold is never stated (0 and 1 may go unsaid: "a card", "no cost");
- an entity the effect names is never named in the text.

What a text may state is looser than what it must: a comparison `n >= 3` is told as "3 or more"
as well as "more than 2" (n - 1 to n + 1 may be stated), and the rule parameters that the
verbs an effect calls read (a cap the verb enforces) may be stated, not must.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from coh_core.effects import ast
from coh_core.effects.registry import VERB_CONTEXTS
from coh_core.errors import Location, Problem
from coh_core.i18n import SOURCE_LOCALE, forms_of, source_hash, source_text
from coh_core.packs.fields import EFFECT_TYPES, RECORD, field_type, held_by, is_set, naming_field
from coh_core.packs.model import Entity, Pack
from coh_core.packs.numerals import stated_numbers, where_stated
from coh_core.packs.yamlsrc import Path_, YamlDoc

DRIFT = "TEXT-DRIFT"
PARAM = "param"  # the call that reads a rule parameter
_ORDERING = frozenset({"<", "<=", ">", ">="})
# Numbers a text may leave unsaid ("a card", "no cost"), or say where its effect has them only
# implicitly (a verb that takes "1 card").
_FREE = frozenset({0, 1})


@dataclass(frozen=True)
class Origin:
    """Where a fact is written: a path in a file, and an offset in the effect's text there.
    Located only when a warning names it."""

    doc: YamlDoc
    path: Path_
    offset: int | None = None

    def location(self) -> Location:
        if self.offset is None or not isinstance(_get(self.doc.data, self.path), str):
            return self.doc.location(self.path)
        return self.doc.offset_in_scalar(self.path, self.offset)


@dataclass(frozen=True)
class Number:
    """A number the described fields hold: the values a text may state it by, whether the text
    must state one of them, how it is written, where, and the text that describes it."""

    values: frozenset[int]
    must: bool
    shown: str
    where: Origin
    text: str


@dataclass(frozen=True)
class Named:
    """An entity an effect names (`@id`), where, and the text that describes the effect."""

    id: str
    where: Origin
    text: str


@dataclass
class Described:
    """The texts of one entity, or of one item of a list of records (a location's side), and the
    facts of the fields they describe: what any of them says counts for all of them."""

    entity: Entity
    texts: list[str]
    numbers: list[Number]
    names: list[Named]


def drift_problems(pack: Pack) -> list[Problem]:
    """TEXT-DRIFT warnings for every entity text of the pack (overlays applied), in every language."""
    described = list(described_texts(pack))
    if not described:
        return []
    # a text may say how many there are of a kind ("your 6 movement cards", one per location)
    sizes = _FREE.union(len(pack.entities_of(kind)) for kind in pack.entity_kinds())
    allowed = [sizes.union(*(n.values for n in entry.numbers)) for entry in described]
    keys = frozenset(key for entry in described for key in entry.texts)
    found: list[Problem] = []
    for locale in pack.locales():
        sources = text_sources(pack, locale, keys)
        names = _Names(pack, locale)
        for entry, may in zip(described, allowed, strict=True):
            texts = {key: sources[key] for key in entry.texts if key in sources}
            if texts:
                found.extend(_drift(entry, may, locale, texts, names))
    return found


def described_texts(pack: Pack) -> Iterator[Described]:
    """The texts of each entity (and of each item of its lists of records) that describe fields,
    with the facts those fields hold."""
    trees = {(id(effect.slot.doc), effect.slot.path): effect.tree for effect in pack.effects}
    params = pack.section("params")
    verbs = verb_reads(pack)
    for kind, entry in pack.kind_declarations().items():
        fields = entry.get("fields")
        if not _has_texts(fields):
            continue
        for entity in pack.entities_of(kind):
            records: dict[str, Described] = {}
            facts = _Facts(entity, trees, params, verbs)
            for record, text, path, base, value in _described_values(entity.data, fields, ""):
                key = f"{kind}.{entity.id}.{record}{text}"
                found = records.setdefault(record, Described(entity, [], [], []))
                if key not in found.texts:
                    found.texts.append(key)
                facts.of(path, base, value, key, found)
            yield from records.values()


def _has_texts(fields: Any) -> bool:
    """Whether any of these fields, or of the fields of their records, declares a `text`."""
    if not isinstance(fields, Mapping):
        return False
    specs = [spec for spec in fields.values() if isinstance(spec, Mapping)]
    return any(spec.get("text") not in (None, False) or _has_texts(spec.get("fields")) for spec in specs)


def _described_values(
    data: Mapping[str, Any], fields: Any, prefix: str, at: Path_ = ()
) -> Iterator[tuple[str, str, Path_, str, Any]]:
    """(record, text, path below the entity, base type, value) of every value a field with a
    `text` holds: the record is the prefix of the texts of the item of a list of records it is
    in (`A.`), empty for the entity's own; texts are named as `field_texts` names them."""
    for name, spec in fields.items() if isinstance(fields, Mapping) else ():
        parsed = field_type(spec)
        value, text = data.get(name), spec.get("text")
        if parsed is None or value is None:
            continue
        if (text is True or isinstance(text, str)) and is_set(value):
            said = str(name) if text is True else text
            for path, base, held, is_key in held_by((*at, str(name)), value, spec):
                if not is_key:
                    yield prefix, said, path, base, held
        if parsed.base != RECORD:
            continue
        if parsed.lists == 0 and isinstance(value, Mapping):
            yield from _described_values(value, spec.get("fields"), prefix, (*at, str(name)))
        named = naming_field(spec)
        for index, item in enumerate(value) if named is not None and isinstance(value, list) else ():
            if isinstance(item, Mapping) and isinstance(item.get(named), str):
                inner = f"{prefix}{item[named]}."
                yield from _described_values(item, spec.get("fields"), inner, (*at, str(name), index))


@dataclass(frozen=True)
class _TreeFacts:
    """What one effect tree holds: its whole numbers (values a text may state each by, how it is
    written, its offset), the parameters it reads and the entities it names (with offsets), and
    the names it calls."""

    numbers: tuple[tuple[frozenset[int], str, int], ...]
    params: tuple[tuple[str, int], ...]
    refs: tuple[tuple[str, int], ...]
    calls: frozenset[str]


# The facts of each tree read, by its identity (each kept alive by its entry): the trees of the
# effects an overlay leaves alone are shared by every pack of a validation run.
_TREES: dict[int, tuple[ast.Node, _TreeFacts]] = {}


def tree_facts(tree: ast.Node) -> _TreeFacts:
    """The facts of an effect tree, read once per tree in a run."""
    found = _TREES.get(id(tree))
    if found is not None and found[0] is tree:
        return found[1]
    numbers: list[tuple[frozenset[int], str, int]] = []
    params: list[tuple[str, int]] = []
    refs: list[tuple[str, int]] = []
    calls: set[str] = set()
    for node, parent in _nodes(tree):
        if isinstance(node, ast.IntLit) and not (isinstance(parent, ast.Call) and parent.name == PARAM):
            near = isinstance(parent, ast.BinOp) and parent.op in _ORDERING
            values = {node.value - 1, node.value, node.value + 1} if near else {node.value}
            numbers.append((frozenset(values), _shown(node, parent), node.span.start))
        elif isinstance(node, ast.Call):
            calls.add(node.name)
            if node.name == PARAM and node.args and isinstance(node.args[0].value, ast.Name):
                params.append((node.args[0].value.name, node.span.start))
        elif isinstance(node, ast.Ref):
            refs.append((node.id, node.span.start))
    made = _TreeFacts(tuple(numbers), tuple(params), tuple(refs), frozenset(calls))
    if len(_TREES) > 100_000:
        _TREES.clear()
    _TREES[id(tree)] = (tree, made)
    return made


class _VerbReads:
    """The rule parameters each verb of a pack reads, itself or through the verbs it calls."""

    def __init__(self, bodies: dict[str, list[ast.Block | ast.Expr]]) -> None:
        self.bodies = bodies
        self.found: dict[str, frozenset[str]] = {}

    def of(self, verb: str) -> frozenset[str]:
        if verb not in self.found:
            reached, pending = {verb}, [verb]
            while pending:  # each verb once, so cycles end
                for body in self.bodies.get(pending.pop(), []):
                    for callee in tree_facts(body).calls.intersection(self.bodies).difference(reached):
                        reached.add(callee)
                        pending.append(callee)
            bodies = [tree_facts(body) for name in reached for body in self.bodies.get(name, [])]
            self.found[verb] = frozenset(name for body in bodies for name, _ in body.params)
        return self.found[verb]


# The verbs' reads of the packs of a run, by the identities of the verbs' trees (kept alive by
# the entry): packs whose overlays change no verb share them.
_VERBS: dict[tuple[tuple[str, int], ...], tuple[list[ast.Block | ast.Expr], _VerbReads]] = {}


def verb_reads(pack: Pack) -> _VerbReads:
    """The reads of the pack's verbs (each worked out when first asked for)."""
    bodies: dict[str, list[ast.Block | ast.Expr]] = {}
    for effect in pack.effects:
        if effect.slot.context in VERB_CONTEXTS:
            bodies.setdefault(effect.slot.owner, []).append(effect.tree)
    trees = [tree for found in bodies.values() for tree in found]
    key = tuple((name, id(tree)) for name, found in bodies.items() for tree in found)
    known = _VERBS.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], trees, strict=True)):
        return known[1]
    if len(_VERBS) > 64:
        _VERBS.clear()
    made = _VerbReads(bodies)
    _VERBS[key] = (list(trees), made)
    return made


class _Facts:
    """The facts of one entity's values."""

    def __init__(
        self,
        entity: Entity,
        trees: dict[tuple[int, Path_], ast.Block | ast.Expr],
        params: Mapping[str, Any],
        verbs: _VerbReads,
    ) -> None:
        self.entity = entity
        self.trees = trees
        self.params = params
        self.verbs = verbs

    def of(self, path: Path_, base: str, value: Any, text: str, into: Described) -> None:
        at = (*self.entity.path, *path)
        doc = self.entity.doc
        if base in EFFECT_TYPES:
            self._tree(doc, at, text, into)
        elif base == "triggers":
            for index, trigger in enumerate(value if isinstance(value, list) else []):
                for part in ("if", "do"):
                    if isinstance(trigger, Mapping) and part in trigger:
                        self._tree(doc, (*at, index, part), text, into)
        elif isinstance(value, int) and not isinstance(value, bool):
            into.numbers.append(Number(frozenset({value}), True, str(value), Origin(doc, at), text))

    def _tree(self, doc: YamlDoc, at: Path_, text: str, into: Described) -> None:
        tree = self.trees.get((id(doc), at))
        if tree is None:
            return
        facts = tree_facts(tree)
        for values, shown, offset in facts.numbers:
            into.numbers.append(Number(values, True, shown, Origin(doc, at, offset), text))
        for name, offset in facts.params:
            self._param(name, True, Origin(doc, at, offset), text, into)
        for entity_id, offset in facts.refs:
            into.names.append(Named(entity_id, Origin(doc, at, offset), text))
        called = facts.calls.intersection(self.verbs.bodies)
        through = {name for verb in called for name in self.verbs.of(verb)}
        for name in sorted(through.difference(name for name, _ in facts.params)):
            self._param(name, False, Origin(doc, at), text, into)

    def _param(self, name: str, must: bool, where: Origin, text: str, into: Described) -> None:
        spec = self.params.get(name)
        value = spec.get("value") if isinstance(spec, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool):
            into.numbers.append(Number(frozenset({value}), must, f"param({name}) = {value}", where, text))


def _nodes(tree: ast.Node) -> Iterator[tuple[ast.Node, ast.Node | None]]:
    """Every node of a tree with its parent."""
    stack: list[tuple[ast.Node, ast.Node | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        stack.extend((child, node) for child in ast.children(node))


def _shown(node: ast.IntLit, parent: ast.Node | None) -> str:
    if isinstance(parent, ast.BinOp):
        return f"{parent.op} {node.value}" if parent.right is node else f"{node.value} {parent.op}"
    return str(node.value)


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


@dataclass(frozen=True)
class TextSource:
    """Where the text of one key, in one language, is written, and the text."""

    text: str
    doc: YamlDoc
    path: Path_


def text_sources(pack: Pack, locale: str, keys: frozenset[str]) -> dict[str, TextSource]:
    """The texts of one language of these keys, each where it is written: the pack's file, then
    each overlay's on top (as `Pack.messages` reads them). Translations of an older English are
    left out: I18N-STALE says so already."""
    found: dict[str, TextSource] = {}
    english: dict[str, Any] = {}  # the English each translation must translate, of these keys
    if locale != SOURCE_LOCALE:
        for layer in [pack, *pack.overlays]:
            entries = layer.entries(SOURCE_LOCALE)
            english.update((key, source_text(entries[key])) for key in keys.intersection(entries))
    for layer in [pack, *pack.overlays]:
        if locale != SOURCE_LOCALE and layer is not pack:
            for key in layer.entries(SOURCE_LOCALE):
                found.pop(key, None)
        doc = layer.text.get(locale)
        if doc is None:
            continue
        entries = layer.entries(locale)
        for key in keys.intersection(entries):
            entry = entries[key]
            path: Path_
            if locale == SOURCE_LOCALE:
                text = source_text(entry)
                path = ("messages", key, "text") if isinstance(entry, Mapping) else ("messages", key)
            elif isinstance(entry, Mapping) and entry.get("source") == _hash(english.get(key)):
                text, path = entry.get("text"), ("messages", key, "text")
            else:
                continue
            if isinstance(text, str):
                found[key] = TextSource(text, doc, path)
    return found


@lru_cache(maxsize=8192)
def _hashed(text: str) -> str:
    return source_hash(text)


def _hash(text: Any) -> str:
    """The source hash of an English text (of a plain one, worked out once per run)."""
    return _hashed(text) if isinstance(text, str) else source_hash(text)


class _Names:
    """The ways a text in one language may name an entity: its name, and the name's forms."""

    def __init__(self, pack: Pack, locale: str) -> None:
        self.pack = pack
        self.locale = locale

    def of(self, entity_id: str) -> list[str]:
        entity = self.pack.entity(entity_id)
        if entity is None:
            return []
        key = f"{entity.kind}.{entity_id}.name"
        text: Any = None
        forms: dict[str, str] = {}
        for layer in [self.pack, *self.pack.overlays]:  # as Pack.messages and Pack.forms read them
            rewritten = layer is not self.pack and key in layer.entries(SOURCE_LOCALE)
            if self.locale != SOURCE_LOCALE and rewritten:  # its English changed: not translated
                text = None
            entry = layer.entries(self.locale).get(key)
            if entry is not None:
                text = source_text(entry)
                forms.update(forms_of(entry))
        return [t for t in [text, *forms.values()] if isinstance(t, str) and t]


def _drift(
    entry: Described, allowed: frozenset[int], locale: str, texts: dict[str, TextSource], names: _Names
) -> Iterator[Problem]:
    """What one language's texts of a record say that its facts do not, and the reverse;
    `allowed`: every number they may say."""
    stated = {key: stated_numbers(source.text, locale) for key, source in texts.items()}
    for key, (firm, _) in stated.items():
        for number in sorted(firm - allowed):
            has = _listed(sorted({n.shown for n in entry.numbers}))
            yield Problem(
                DRIFT,
                f"`{key}` ({locale}) says {number}, which what it describes does not have ({has})",
                _at(texts[key], where_stated(texts[key].text, locale, number)),
            )
    said = _FREE.union(*(firm | loose for firm, loose in stated.values()))
    for fact in entry.numbers:
        if fact.must and fact.values.isdisjoint(said) and fact.text in texts:
            yield Problem(
                DRIFT,
                f"`{fact.text}` ({locale}) never says {fact.shown}, which what it describes has"
                f" ({fact.where.location()})" + _also(fact.text, texts),
                _at(texts[fact.text]),
            )
    written = " ".join(source.text for source in texts.values()).casefold() if entry.names else ""
    for named in entry.names:
        name = names.of(named.id) if named.id != entry.entity.id else []
        if name and named.text in texts and not any(form.casefold() in written for form in name):
            yield Problem(
                DRIFT,
                f"`{named.text}` ({locale}) never names `{named.id}` ({name[0]}), which its effect"
                f" names ({named.where.location()})" + _also(named.text, texts),
                _at(texts[named.text]),
            )


def _at(source: TextSource, offset: int | None = None) -> Location:
    """Where the text is written, or (`offset`) a character of it."""
    if offset is None:
        return source.doc.location(source.path)
    return source.doc.offset_in_scalar(source.path, offset)


def _also(key: str, texts: dict[str, TextSource]) -> str:
    """The other texts of the record that were read too."""
    others = [f"`{other}`" for other in texts if other != key]
    return f"; nor do {', '.join(others)}" if others else ""


def _listed(shown: list[str]) -> str:
    return ", ".join(shown) if shown else "no number"
