"""Writing translation files: a new or refreshed `text/<locale>.yaml`, and marking entries current.

`template` writes every English entry in English order, with the English section comments
and, above each declared message, its note for translators (where it appears, what each
placeholder holds): entries the file already has are kept as they are, the others get the
English text (to be translated; `coh i18n check` reports them as untranslated until then) and
its source hash. coh's own texts follow, those the pack's English does not reword: each
commented out with coh's text in that language (uncommented, it rewords it), or, in a language
coh has no texts in, to translate as the pack's are.
`stamp` records, after a translator has revised stale entries, that they now translate the
current English: it rewrites only their `source:` values, leaving the rest of the file alone.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from coh_core.errors import UsageError
from coh_core.i18n import NAME_SUFFIX, SOURCE_LOCALE, forms_of, source_hash
from coh_core.messages import DeclaredMessages, Message
from coh_core.packs.declarations import messages_of
from coh_core.packs.engine_texts import engine_chain, engine_english
from coh_core.packs.i18n_check import engine_needs
from coh_core.packs.loader import TEXT_DIR
from coh_core.packs.model import Pack
from coh_core.packs.paths import PathRefused, file_in_pack

_COMMENT = re.compile(r"^  #")
_NOTE_WIDTH = 92  # columns of a note's text, after its indentation
_ENGINE_PART = "coh's own texts"
_SOURCE_VALUE = re.compile(r"(source:\s*)(\"[^\"]*\"|'[^']*'|[^\s#,}]+)")


def template(pack: Pack, locale: str, declared: DeclaredMessages | None = None) -> str:
    """The text file for `locale`: its current entries kept, English for the rest, in English order.

    `declared`: the messages of the pack it is played in (by default its own), whose notes
    are written above their entries.
    """
    if declared is None:
        declared = messages_of(pack)
    english_doc = pack.text[SOURCE_LOCALE]
    english = pack.own_messages(SOURCE_LOCALE)
    existing = pack.entries(locale) if locale in pack.text else {}
    comments = _section_comments(english_doc.text)
    lines = [
        "# yaml-language-server: $schema=../../../schemas/text.schema.json",
        f"locale: {json.dumps(locale)}",  # quoted: Norwegian's `no` is a YAML 1.1 boolean
        "messages:",
    ]
    for key, text in english.items():
        line = english_doc.location(("messages", key), key=True).line
        while comments and comments[0][0] < line:
            lines.append(comments.pop(0)[1])
        entry = existing.get(key)
        if not isinstance(entry, dict) or "text" not in entry:
            entry = {"text": text, "source": source_hash(text)}
        message = declared.texts.get(key)
        lines.extend(note_lines(message) if message is not None else _entity_note_lines(key))
        lines.extend(entry_lines(key, entry))
    lines.extend(_engine_part(pack, locale, english, existing, declared))
    return "\n".join(lines) + "\n"


def _engine_part(
    pack: Pack, locale: str, english: dict[str, Any], existing: dict[str, Any], declared: DeclaredMessages
) -> list[str]:
    """The engine's texts the pack's English does not reword, after the pack's own: for a game,
    each commented out with coh's text in this language (uncommented, it rewords it), or to
    translate if coh has none in it; for an overlay, only those its file already rewords."""
    keys = [key for key in engine_english() if key not in english]
    needed = set(engine_needs(pack, locale, english))
    game = pack.manifest.get("kind", "base") == "base"
    if not keys or (not game and not any(key in existing for key in keys)):
        return []
    language = locale.split("-")[0]
    lines = [f"  # -- {_ENGINE_PART} ".ljust(_NOTE_WIDTH, "-")]
    if needed:
        about = f"coh has no {language} texts of its own: translate these too, or they show in English."
    else:
        about = (
            f"coh words these in {language} for every game: to word one otherwise in this one,"
            " uncomment its key and the lines below it (remove their `# `) and change its text."
        )
    lines.extend(f"  # {line}" for line in _wrapped(about, _NOTE_WIDTH))
    theirs = engine_chain(locale)
    for key in keys:
        message = declared.texts.get(key)
        if key not in existing and key not in needed and not game:
            continue
        lines.append("")  # apart: the notes are comments, as the entries left out are
        lines.extend(note_lines(message) if message is not None else [])
        source = source_hash(engine_english()[key])
        if key in existing and isinstance(existing[key], dict) and "text" in existing[key]:
            lines.extend(entry_lines(key, existing[key]))
        elif key in needed:
            lines.extend(entry_lines(key, {"text": engine_english()[key], "source": source}))
        else:
            same = {"same": True} if theirs[key] == engine_english()[key] else {}
            entry = {"text": theirs[key], "source": source, **same}
            lines.extend(f"  # {line[2:]}" for line in entry_lines(key, entry))
    return lines


def _section_comments(text: str) -> list[tuple[int, str]]:
    """The English file's comment lines inside `messages`, with their line numbers."""
    return [
        (number, line.rstrip()) for number, line in enumerate(text.splitlines(), 1) if _COMMENT.match(line)
    ]


def note_lines(message: Message) -> list[str]:
    """A message's note and what each placeholder holds, as comments above its entry."""
    lines = [f"  # {line}" for line in _wrapped(message.note, _NOTE_WIDTH)]
    for name, holds in message.holds.items():
        lines.extend(f"  #   {line}" for line in _wrapped(f"{{{name}}}: {holds}", _NOTE_WIDTH - 2, "  "))
    return lines


def _entity_note_lines(key: str) -> list[str]:
    """The note above a text of the pack's entities (a name, a card's text...), from its key:
    `<kind>.<id>.<field>`, the id being one or more parts (`location.<id>.<side>.name`)."""
    kind, *ident, field = key.split(".")
    note = f"The {field} of the {kind} `{'.'.join(ident)}`" if ident else f"The {field} of the {kind}"
    if key.endswith(NAME_SUFFIX):
        note += (
            ": put into messages as it is, or in a form a message asks for (`{placeholder:form}`) if the"
            " entry declares `forms`"
        )
    return [f"  # {line}" for line in _wrapped(note + ".", _NOTE_WIDTH)]


def _wrapped(text: str, width: int, indent: str = "") -> list[str]:
    """Lines of at most `width` columns; any line break of the text (Unicode ones too, which
    YAML would read as the end of the comment) becomes a space."""
    return textwrap.wrap(" ".join(text.split()), width, subsequent_indent=indent)


def entry_lines(key: str, entry: dict[str, Any]) -> list[str]:
    lines = [f"  {key}:", f"    text: {flow(entry['text'])}", f'    source: "{entry.get("source", "")}"']
    if entry.get("same"):
        lines.append("    same: true")
    forms = forms_of(entry)
    if forms:
        lines.append(f"    forms: {flow(forms)}")
    return lines


def flow(value: Any) -> str:
    """A text as a YAML flow value: a double-quoted string, or a mapping of them."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def stamp(pack: Pack, locale: str, keys: list[str]) -> list[str]:
    """Set `source:` of these entries to the hash of the current English; returns the keys changed."""
    if locale == SOURCE_LOCALE or locale not in pack.text:
        raise UsageError(f"pack `{pack.id}` has no {locale} translation to stamp", code="I18N-LANG")
    doc = pack.text[locale]
    english = {**engine_english(), **pack.own_messages(SOURCE_LOCALE)}  # an entry may reword coh's own
    entries = pack.entries(locale)
    unknown = [k for k in keys if k not in entries or k not in english]
    if unknown:
        raise UsageError(f"no {locale} entry `{unknown[0]}` to stamp", code="I18N-KEY")
    lines = doc.text.splitlines(keepends=True)
    changed = []
    for key in keys:
        wanted = source_hash(english[key])
        if entries[key].get("source") == wanted:
            continue
        number = doc.location(("messages", key, "source")).line - 1
        lines[number] = _SOURCE_VALUE.sub(rf'\g<1>"{wanted}"', lines[number], count=1)
        changed.append(key)
    if changed:
        Path(_file_of(pack, locale)).write_text("".join(lines), encoding="utf-8")
    return changed


def _file_of(pack: Pack, locale: str) -> Path:
    """The path on disk of a text file (listed in the manifest, or `text/<locale>.yaml`), checked
    to be a file inside the pack before it is written."""
    listed = pack.manifest.get("text")
    relative = f"{TEXT_DIR}/{locale}.yaml"
    if isinstance(listed, dict) and isinstance(listed.get(locale), str):
        relative = str(listed[locale])
    try:
        return file_in_pack(pack.root, relative)
    except PathRefused as refused:
        raise UsageError(refused.message, code=refused.code) from None
