"""Languages: which one to speak, where a missing text falls back to, plural forms, source hashes.

English is the source language: every other text file translates it entry by entry, and each
entry records a short hash of the English text it was made from, so a changed English text
shows up as stale everywhere. A text is a string or, where it says how many of something
there are, a mapping of CLDR plural categories (`one`, `few`, `many`, `other`...) to strings;
the category is picked by the locale's plural rule (Babel's CLDR data) for the number in the
parameter `count` (or the one `PLURAL_PARAMS` names for that key).

A name (a `*.name` text) may also declare grammatical forms, `{text: die Kirche, forms: {in: in
der Kirche}}`, which a message asks for with `{location:in}`; a name without that form shows
its plain text.
"""

from __future__ import annotations

import hashlib
import json
import locale as system_locale
import os
import re
import sys
from collections.abc import Mapping
from functools import cache
from typing import Any

SOURCE_LOCALE = "en"
LOCALE_PATTERN = re.compile(r"^[a-z]{2,3}(-[A-Z]{2})?$")
PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")
DEFAULT_PLURAL_PARAM = "count"
FORM_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")  # the name of a grammatical form: `in`, `dat`
NAME_SUFFIX = ".name"  # the texts that may declare forms
ENV_VAR = "COH_LANG"

Text = str | dict[str, str]  # one string, or one per plural category


def source_hash(text: Any) -> str:
    """The short hash a translation records of the English text it translates."""
    canonical = text if isinstance(text, str) else json.dumps(text, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:8]


def normalize_locale(value: str | None) -> str | None:
    """`fr_CA.UTF-8`, `fr-ca` or `FR` as coh writes locales (`fr-CA`, `fr`); None if not one."""
    if not value:
        return None
    code = value.split(".")[0].split("@")[0].replace("_", "-")
    language, _, region = code.partition("-")
    found = language.lower() + (f"-{region.upper()}" if region else "")
    return found if LOCALE_PATTERN.match(found) else None


def fallback_chain(locale: str) -> list[str]:
    """Where texts are looked up, most specific first: `fr-CA` -> `fr` -> `en`."""
    chain = [locale]
    language = locale.split("-")[0]
    if language != locale:
        chain.append(language)
    if SOURCE_LOCALE not in chain:
        chain.append(SOURCE_LOCALE)
    return chain


def default_locale(environ: Mapping[str, str] | None = None) -> str:
    """`COH_LANG`, else the system's language (LC_ALL, LC_MESSAGES, LANG), else English."""
    env = os.environ if environ is None else environ
    for name in (ENV_VAR, "LC_ALL", "LC_MESSAGES", "LANG"):
        found = normalize_locale(env.get(name))
        if found is not None:
            return found
    if environ is None:
        found = normalize_locale(system_locale.getlocale()[0])
        if found is not None:
            return found
    return SOURCE_LOCALE


@cache
def _plural_rule(locale: str) -> Any:
    """The locale's plural rule; its rules kept in coh's cache (a file named by a digest of this
    code, of Babel and of Python): reading Babel's whole locale data is most of the work."""
    import pickle
    from pathlib import Path

    from babel.plural import PluralRule

    from coh_core import cache_dir

    known = cache_dir.stored("plurals", [Path(__file__)], [cache_dir.library_stamp("babel"), sys.version])
    key = hashlib.sha256(locale.encode("utf-8", "surrogatepass")).hexdigest()
    stored = known.get(key)
    if stored is not None:
        try:
            # written by coh in the user's own cache folder (private to the user)
            return PluralRule(pickle.loads(stored))
        except Exception:  # a damaged entry: read Babel's data again
            del known[key]
    rule = _plural_rule_of_babel(locale)
    known.learn(key, pickle.dumps(dict(rule.rules), protocol=pickle.HIGHEST_PROTOCOL))
    return rule


def _plural_rule_of_babel(locale: str) -> Any:
    from babel import Locale, UnknownLocaleError

    for candidate in fallback_chain(locale):
        try:
            return Locale.parse(candidate, sep="-").plural_form
        except (UnknownLocaleError, ValueError):
            continue
    return Locale.parse(SOURCE_LOCALE).plural_form


def plural_categories(locale: str) -> frozenset[str]:
    """The plural categories the locale's language distinguishes (`other` always among them)."""
    return frozenset(_plural_rule(locale).tags) | {"other"}


def plural_category(locale: str, number: Any) -> str:
    """The CLDR category of a number in this locale: French says `one` for 0, English `other`."""
    if isinstance(number, bool) or not isinstance(number, int | float):
        return "other"
    return str(_plural_rule(locale)(number))


def pick_form(text: Text, locale: str, number: Any) -> str:
    """The string of a text for this number: its category's form, or `other`."""
    if isinstance(text, str):
        return text
    return text.get(plural_category(locale, number)) or text.get("other") or next(iter(text.values()), "")


def text_forms(text: Any) -> list[str]:
    """Every string of a text: itself, or each of its plural forms."""
    if isinstance(text, str):
        return [text]
    if isinstance(text, Mapping):
        return [v for v in text.values() if isinstance(v, str)]
    return []


def source_text(entry: Any) -> Any:
    """The text of an English entry: the entry itself, or the `text` of a name with forms."""
    if isinstance(entry, Mapping) and "text" in entry:
        return entry["text"]
    return entry


def forms_of(entry: Any) -> dict[str, str]:
    """The grammatical forms an entry (English or translated) declares: none for most."""
    forms = entry.get("forms") if isinstance(entry, Mapping) else None
    if not isinstance(forms, Mapping):
        return {}
    return {str(k): v for k, v in forms.items() if isinstance(v, str) and v}
