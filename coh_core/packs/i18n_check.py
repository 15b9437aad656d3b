"""Checks of the translations of a pack against its English source (`coh i18n check`).

For each language: entries missing (with the line where they belong), extra entries (ids
English lacks), stale entries (the English changed since, by the recorded source hash),
placeholder mismatches, plural forms the language does not have, texts left in English
without saying so (`same: true`), and grammatical forms of names that are unsound (I18N-FORM:
forms on a text that is no name, a form no name declares, a name lacking a form its kind's
other names have). Coverage is the share of English entries translated and
up to date. A regional file (`fr-CA`) next to its language's file (`fr`) only overrides:
what it lacks falls back, so it is never reported missing.

coh's own texts (`coh_core.packs.engine_texts`) are no pack's to translate: an entry for one of
their keys that the pack's English does not reword rewords coh's in that language, checked
against coh's English and not counted. In a language coh has no texts in, a game (not an
overlay) carries them itself: each is then an entry like its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from coh_core.effects.checker import suggest
from coh_core.errors import Location, Problem
from coh_core.i18n import (
    DEFAULT_PLURAL_PARAM,
    FORM_PATTERN,
    NAME_SUFFIX,
    SOURCE_LOCALE,
    forms_of,
    plural_categories,
    source_hash,
    source_text,
    text_forms,
)
from coh_core.messages import DeclaredMessages, placeholder_forms, placeholders
from coh_core.packs.declarations import messages_of
from coh_core.packs.engine_texts import engine_doc, engine_english, engine_speaks
from coh_core.packs.model import Pack
from coh_core.packs.yamlsrc import YamlDoc

# Problems that make an entry count as not translated.
_UNTRANSLATED = frozenset({"I18N-STALE", "I18N-PLACEHOLDER", "I18N-PLURAL", "I18N-UNTRANSLATED"})


@dataclass
class LocaleReport:
    """What `coh i18n check` finds for one language of one pack."""

    pack: str
    locale: str
    file: str
    total: int  # English entries
    translated: int  # present, up to date and sound
    complete_by_fallback: bool  # a regional file: what it lacks comes from its language
    where: Location  # the file's `messages`, or the manifest of a pack without the file
    problems: list[Problem] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return 100.0 if self.total == 0 else 100.0 * self.translated / self.total

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for problem in self.problems:
            counts[problem.code] = counts.get(problem.code, 0) + 1
        return {
            "pack": self.pack,
            "locale": self.locale,
            "file": self.file,
            "entries": self.total,
            "translated": self.translated,
            "coverage": round(self.coverage, 1),
            "counts": counts,
            "problems": [p.to_json() for p in self.problems],
        }


@dataclass(frozen=True)
class Summary:
    """How many problems the reports hold, by code and by the file each is in (then by code)."""

    codes: dict[str, int]
    files: dict[str, dict[str, int]]

    def to_json(self) -> dict[str, Any]:
        return {"codes": self.codes, "files": self.files}


def summarize(reports: list[LocaleReport]) -> Summary:
    """The problems of the reports counted (`coh i18n check --summary`), codes in order, files
    as they first come."""
    codes: dict[str, int] = {}
    files: dict[str, dict[str, int]] = {}
    for problem in (p for report in reports for p in report.problems):
        codes[problem.code] = codes.get(problem.code, 0) + 1
        by_code = files.setdefault(problem.location.file, {})
        by_code[problem.code] = by_code.get(problem.code, 0) + 1
    return Summary(dict(sorted(codes.items())), {f: dict(sorted(c.items())) for f, c in files.items()})


def translated_locales(pack: Pack) -> list[str]:
    """The pack's languages other than English (its overlays' included)."""
    return [loc for loc in pack.locales() if loc != SOURCE_LOCALE]


def check_translations(pack: Pack, locales: list[str] | None = None) -> list[LocaleReport]:
    """One report per translated language of the pack and of each overlay applied to it.

    Each pack's translations translate that pack's own English: an overlay that changes a
    text, or adds one, carries its translations too.
    """
    reports = []
    # An overlay's texts may be declared below it.
    declared = messages_of(pack)
    for layer in [pack, *pack.overlays]:
        for locale in locales or translated_locales(pack):
            if locale in layer.text:
                reports.append(check_locale(layer, locale, declared, language_forms(pack, locale)))
            elif (
                layer.own_messages(SOURCE_LOCALE)
                and locale.split("-")[0] == locale
                and carries(layer, locale)
            ):
                reports.append(_untranslated_layer(layer, locale))
    return reports


def carries(layer: Pack, locale: str) -> bool:
    """Whether the pack means to carry a language: those its manifest lists (`languages`), else
    every one (what it lacks is then missing). A language it does not list shows in English."""
    languages = layer.manifest.get("languages")
    if not isinstance(languages, list):
        return True
    return locale in languages or locale.split("-")[0] in languages


def _untranslated_layer(layer: Pack, locale: str) -> LocaleReport:
    english = layer.own_messages(SOURCE_LOCALE)
    where = layer.manifest_doc.location(("id",))
    report = LocaleReport(layer.id, locale, f"text/{locale}.yaml", len(english), 0, False, where)
    report.problems.append(
        Problem(
            "I18N-MISSING",
            f"pack `{layer.id}` has no {locale} text for its {len(english)} English texts"
            f" (`coh i18n template {locale} --pack {Path(layer.manifest_doc.path).parent}` starts one)",
            where,
        )
    )
    return report


# Reports by the text files they compare (kept alive with them) and the plural numbers of the
# messages: a base pack checked under several overlays in one run is checked once.
_CHECKED: dict[tuple[int, int, frozenset[tuple[str, str]]], tuple[YamlDoc, YamlDoc, LocaleReport]] = {}


def check_locale(
    pack: Pack,
    locale: str,
    declared: DeclaredMessages | None = None,
    forms: Mapping[str, dict[str, str]] | None = None,
) -> LocaleReport:
    """One pack's translation into `locale`, against that pack's own English (`declared`: the
    messages of the pack it is played in, by default its own; `forms`: the forms of that pack's
    names in this language, by default its own)."""
    if declared is None:
        declared = messages_of(pack)
    report = _checked(pack, locale, declared)
    found = file_form_problems(pack.text[locale], pack.entries(locale), forms or language_forms(pack, locale))
    report.problems.extend(found)
    return report


def language_forms(pack: Pack, locale: str) -> Mapping[str, dict[str, str]]:
    """The forms of a composed pack's names in a language: a regional file's over its language's."""
    language = locale.split("-")[0]
    languages, locales = _files(pack, language), _files(pack, locale)

    def forms() -> dict[str, dict[str, str]]:
        found = _forms_in(languages)
        own = pack.entries(locale)
        found.update({k: v for k, v in _forms_in(locales).items() if k in own})
        return found

    return by_files(f"forms:{locale}", (*languages, _APART, *locales, _APART, pack.text.get(locale)), forms)


def pack_forms(pack: Pack, locale: str) -> Mapping[str, dict[str, str]]:
    """`Pack.forms`, worked out once for the same text files (not to be changed)."""
    files = _files(pack, locale)
    return by_files(f"pack-forms:{locale}", files, lambda: _forms_in(files))


def _forms_in(files: tuple[YamlDoc, ...]) -> dict[str, dict[str, str]]:
    """The forms of the names of text files, a later file's over an earlier one's (`Pack.forms`)."""
    found: dict[str, dict[str, str]] = {}
    for doc in files:
        found.update(by_files("file-forms", (doc,), partial(_file_forms, doc)))
    return found


def _file_forms(doc: YamlDoc) -> dict[str, dict[str, str]]:
    return {k: forms_of(v) for k, v in _entries(doc).items()}


def _entries(doc: YamlDoc) -> Mapping[str, Any]:
    """The `messages` of a text file as written (`Pack.entries`)."""
    messages = doc.data.get("messages") if isinstance(doc.data, dict) else None
    return messages if isinstance(messages, dict) else {}


def _files(pack: Pack, locale: str) -> tuple[YamlDoc, ...]:
    """The text files of a language, of the pack and of each overlay on it that has one, in order."""
    return tuple(doc for layer in [pack, *pack.overlays] if (doc := layer.text.get(locale)) is not None)


_APART = object()  # between two lists of files


def file_form_problems(
    doc: YamlDoc, entries: Mapping[str, Any], declared: Mapping[str, dict[str, str]]
) -> list[Problem]:
    """`form_problems`, worked out once for the same file and what it reads of `declared`: the
    forms known (in the order `form_problems` goes through them), those of each kind of name,
    and those of the file's own names. An overlay that adds names leaves the base's files'
    problems as they were."""
    known, kinds = by_files("forms-summary", (declared,), lambda: _forms_summary(declared))
    own = tuple((key, frozenset(declared.get(key, ()))) for key in entries if key.endswith(NAME_SUFFIX))
    done: list[tuple[Any, ...]] = by_files("form-problems", (doc, entries), list)
    for earlier_known, earlier_kinds, earlier_own, found in done:
        if earlier_known == known and earlier_kinds == kinds and earlier_own == own:
            return list(found)
    found = list(form_problems(doc, entries, declared))
    done.append((known, kinds, own, found))
    return found


def _forms_summary(
    declared: Mapping[str, dict[str, str]],
) -> tuple[tuple[str, ...], dict[tuple[str, int], frozenset[str]]]:
    """What `form_problems` reads of all the names' forms: the forms known, in the order of the
    set it goes through, and the forms of each kind of name (`_lacking_forms`)."""
    return tuple(_known_forms(declared)), {k: frozenset(v) for k, v in _kinds_forms(declared).items()}


_T = TypeVar("_T")
# What was worked out from text files alone (and objects worked out from them), by the objects
# themselves (their identity; each entry keeps its own alive, so an identity is never another's):
# the texts of a base pack checked under each of several overlays are worked out once. The
# files are never changed once read.
_BY_FILES: dict[tuple[object, ...], tuple[tuple[object, ...], object]] = {}


def by_files(name: str, files: tuple[object, ...], compute: Callable[[], _T]) -> _T:
    """What `compute` gives, worked out once for the same objects `files` (`name`: which result)."""
    key = (name, *map(id, files))
    found = _BY_FILES.get(key)
    if found is None or any(a is not b for a, b in zip(found[0], files, strict=True)):
        if len(_BY_FILES) > 1024:
            _BY_FILES.clear()
        found = _BY_FILES[key] = (files, compute())
    return found[1]  # type: ignore[return-value]


def _checked(pack: Pack, locale: str, declared: DeclaredMessages) -> LocaleReport:
    """The report of `_check_locale`, computed once for the same files (a copy to extend)."""
    doc, english_doc = pack.text[locale], pack.text.get(SOURCE_LOCALE)
    if english_doc is None:
        return _check_locale(pack, locale, declared)
    key = (id(doc), id(english_doc), _plurals(declared))
    found = _CHECKED.get(key)
    if found is None or found[0] is not doc or found[1] is not english_doc:
        if len(_CHECKED) > 256:
            _CHECKED.clear()
        found = (doc, english_doc, _check_locale(pack, locale, declared))
        _CHECKED[key] = found
    report = found[2]
    return LocaleReport(**{**report.__dict__, "problems": list(report.problems)})


def _plurals(declared: DeclaredMessages) -> frozenset[tuple[str, str]]:
    """The texts whose plural form a number other than `count` picks (all a report depends on)."""
    return frozenset((k, m.plural) for k, m in declared.texts.items() if m.plural != DEFAULT_PLURAL_PARAM)


def _check_locale(pack: Pack, locale: str, declared: DeclaredMessages) -> LocaleReport:
    doc = pack.text[locale]
    english = pack.own_messages(SOURCE_LOCALE)
    engine = {k: v for k, v in engine_english().items() if k not in english}  # the pack may reword
    entries = pack.entries(locale)
    language = locale.split("-")[0]
    regional = language != locale and language in pack.text
    needed = engine_needs(pack, locale, english)
    where = doc.location(("messages",), key=True)
    report = LocaleReport(pack.id, locale, doc.path, len(english) + len(needed), 0, regional, where)
    order = list(english)
    unsound = 0
    for index, key in enumerate(order):
        if key not in entries:
            if not regional:
                report.problems.append(_missing(doc, entries, order, index, locale, pack))
            continue
        found = list(_check_entry(doc, key, english[key], entries[key], locale, declared.plural_param(key)))
        report.problems.extend(found)
        if any(p.code in _UNTRANSLATED for p in found):
            unsound += 1
        else:
            report.translated += 1
    for key in needed:
        if key not in entries:
            if not regional:
                report.problems.append(_engine_missing(doc, key, locale))
        elif not any(p.code in _UNTRANSLATED for p in _engine_entry(doc, key, entries, locale, declared)):
            report.translated += 1
    for key in entries:
        if key in engine:  # rewords the engine's text in this language
            report.problems.extend(_engine_entry(doc, key, entries, locale, declared))
        elif key not in english:
            report.problems.append(
                Problem(
                    "I18N-EXTRA",
                    f"`{key}` is not an English text of pack `{pack.id}` nor one of coh's own"
                    + suggest(key, [*english, *engine]),
                    doc.location(("messages", key), key=True),
                )
            )
    if regional:  # entries it lacks come from its language's file
        report.translated = report.total - unsound
    return report


def engine_needs(pack: Pack, locale: str, english: Mapping[str, Any]) -> list[str]:
    """The engine's texts a game must translate itself into a language coh has no texts in (its
    own English rewords none of them); none for an overlay, or a language coh speaks."""
    if pack.manifest.get("kind", "base") != "base" or engine_speaks(locale):
        return []
    return [key for key in engine_english() if key not in english]


def _engine_entry(
    doc: YamlDoc, key: str, entries: Mapping[str, Any], locale: str, declared: DeclaredMessages
) -> list[Problem]:
    """A pack's text for one of the engine's keys, against the engine's English."""
    english = engine_english()[key]
    return list(_check_entry(doc, key, english, entries[key], locale, declared.plural_param(key)))


def _engine_missing(doc: YamlDoc, key: str, locale: str) -> Problem:
    english = engine_doc(SOURCE_LOCALE)
    at = english.location(("messages", key), key=True) if english is not None else "coh_core/text/en.yaml"
    return Problem(
        "I18N-MISSING",
        f"no {locale} text for coh's own `{key}` (coh has no {locale.split('-')[0]} texts; English at"
        f" {at}): add it, or it shows in English (`coh i18n template {locale}` lists them)",
        _end_of(doc),
    )


def form_problems(
    doc: YamlDoc, entries: Mapping[str, Any], declared: Mapping[str, dict[str, str]]
) -> Iterator[Problem]:
    """The grammatical forms of one text file (`entries`, as written), against the forms every
    name of the pack it is played in declares in its language (`declared`, by key)."""
    known = _known_forms(declared)
    for key, entry in entries.items():
        if forms_of(entry) and not key.endswith(NAME_SUFFIX):
            yield Problem(
                "I18N-FORM",
                f"`{key}` declares forms, but only names (`*{NAME_SUFFIX}`) take them",
                doc.location(("messages", key, "forms"), key=True),
            )
        for form in text_forms(source_text(entry)):
            for name, wanted in placeholder_forms(form):
                fault = _form_fault(wanted, known)
                if fault:
                    yield Problem(
                        "I18N-FORM",
                        f"`{key}` asks for `{{{name}:{wanted}}}`: {fault}",
                        doc.location(_text_path(key, entry)),
                    )
    yield from _lacking_forms(doc, entries, declared)


def _known_forms(declared: Mapping[str, dict[str, str]]) -> set[str]:
    return {form for forms in declared.values() for form in forms}


def _kinds_forms(declared: Mapping[str, dict[str, str]]) -> dict[tuple[str, int], set[str]]:
    """The forms the names of each kind (and key shape) declare, together."""
    kinds: dict[tuple[str, int], set[str]] = {}
    for key, forms in declared.items():
        if key.endswith(NAME_SUFFIX):
            kinds.setdefault(_kind_of(key), set()).update(forms)
    return kinds


def _form_fault(form: str, known: set[str]) -> str:
    """What is wrong with a form a message asks for ('' if nothing)."""
    if not FORM_PATTERN.match(form):
        return "a form's name is lowercase letters, digits and `_`"
    if form not in known:
        return f"no name of this language declares the form `{form}`" + suggest(form, known)
    return ""


def _lacking_forms(
    doc: YamlDoc, entries: Mapping[str, Any], declared: Mapping[str, dict[str, str]]
) -> Iterator[Problem]:
    """Names of the file lacking a form that other names of the same kind (and key shape) declare."""
    kinds = _kinds_forms(declared)
    for key in entries:
        if not key.endswith(NAME_SUFFIX):
            continue
        lacking = sorted(kinds.get(_kind_of(key), set()) - set(declared.get(key, {})))
        if lacking:
            at = ("messages", key, "forms") if forms_of(entries[key]) else ("messages", key)
            yield Problem(
                "I18N-FORM",
                f"`{key}` has no form {', '.join(f'`{f}`' for f in lacking)}, which other names like it"
                " declare (it would show its plain text there)",
                doc.location(at, key=True),
            )


def _text_path(key: str, entry: Any) -> tuple[str, ...]:
    """Where an entry's text is: the entry itself (an English text), or its `text`."""
    return ("messages", key, "text") if isinstance(entry, Mapping) and "text" in entry else ("messages", key)


def _kind_of(key: str) -> tuple[str, int]:
    """Names alike: `<kind>.<id>.name` of two ids, not `<kind>.<id>.<side>.name` (one level deeper)."""
    return key.split(".")[0], key.count(".")


def _missing(
    doc: YamlDoc, entries: dict[str, Any], order: list[str], index: int, locale: str, pack: Pack
) -> Problem:
    """A missing entry, located where it belongs: before the next English key the file has."""
    key = order[index]
    following = next((k for k in order[index + 1 :] if k in entries), None)
    english = pack.text[SOURCE_LOCALE].location(("messages", key), key=True)
    if following is not None:
        where, place = doc.location(("messages", following), key=True), f"before `{following}`"
    else:
        where, place = _end_of(doc), "at the end"
    return Problem(
        "I18N-MISSING",
        f"no {locale} text for `{key}` (English at {english}); add it {place}",
        where,
    )


def _end_of(doc: YamlDoc) -> Location:
    return Location(doc.path, max(1, doc.text.count("\n")), 1)


def _check_entry(
    doc: YamlDoc, key: str, english: Any, entry: Any, locale: str, number: str
) -> Iterator[Problem]:
    if not isinstance(entry, dict) or "text" not in entry or not doc.is_valid(("messages", key)):
        return  # the schema has reported its shape
    text = entry["text"]
    wanted = source_hash(english)
    if entry.get("source") != wanted:
        yield Problem(
            "I18N-STALE",
            f"`{key}` translates an older English text ({entry.get('source')}); the English is now"
            f" {_quote(english)}: update the text and set `source: {wanted}`",
            doc.location(("messages", key, "source")),
        )
    yield from _check_placeholders(doc, key, english, text, number)
    yield from plural_problems(doc, key, text, locale, ("messages", key, "text"))
    if text == english and not entry.get("same"):
        yield Problem(
            "I18N-UNTRANSLATED",
            f"`{key}` is the English text; translate it, or add `same: true` if it stays as it is",
            doc.location(("messages", key, "text")),
        )


def _check_placeholders(doc: YamlDoc, key: str, english: Any, text: Any, number: str) -> Iterator[Problem]:
    """A translation uses the English placeholders: any form may leave out the plural `number`."""
    wanted = {name for form in text_forms(english) for name in placeholders(form)}
    used = {name for form in text_forms(text) for name in placeholders(form)}
    optional = {number} if isinstance(text, dict) else set()
    unknown, lacking = sorted(used - wanted), sorted(wanted - used - optional)
    if unknown or lacking:
        faults = [f"uses {_braced(unknown)}, which English lacks"] if unknown else []
        faults += [f"lacks {_braced(lacking)}"] if lacking else []
        yield Problem(
            "I18N-PLACEHOLDER",
            f"`{key}` {' and '.join(faults)} (English: {_braced(sorted(wanted)) or 'none'})",
            doc.location(("messages", key, "text")),
        )


def plural_problems(doc: YamlDoc, key: str, text: Any, locale: str, at: tuple[str, ...]) -> Iterator[Problem]:
    """Plural categories the language does not have (`at`: where the text is in the file)."""
    if not isinstance(text, dict):
        return
    allowed = plural_categories(locale)
    for category in text:
        if category not in allowed:
            yield Problem(
                "I18N-PLURAL",
                f"`{key}`: {locale} has no plural form `{category}` (it has {', '.join(sorted(allowed))})",
                doc.location((*at, category), key=True),
            )


def _braced(names: list[str]) -> str:
    return ", ".join(f"{{{n}}}" for n in names)


def _quote(text: Any) -> str:
    shown = text if isinstance(text, str) else text.get("other", "")
    return f'"{shown[:60]}…"' if len(shown) > 60 else f'"{shown}"'
