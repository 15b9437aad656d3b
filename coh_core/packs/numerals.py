"""The numbers a text states in words, by language: what the drift lint (coh_core.packs.drift)
reads besides digits.

These are facts of the languages, not of any game, so they live here rather than in a pack,
and they are no text anyone reads, so not in the message files either (a translator would be
asked to translate them, and `coh i18n` to track them). A language with no table here states
its numbers in digits only.

A word is *firm* when it only ever means its number in a game's text (`three`, `tres`, `drei`).
It is *loose* when it is also something else: the words for one are articles and pronouns
(`a`, `una`, `ein`, `one of your...`), `first` names the first player, Italian `sei` is "you
are", French `neuf` is "new". A loose word never makes a text say a number its effect lacks,
but it does say the number its effect has.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

# The numbers from two to ten, and above, firm in every language below.
_CARDINALS: dict[str, tuple[str, ...]] = {
    "en": ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    "es": ("dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once", "doce"),
    "it": ("due", "tre", "quattro", "cinque", "", "sette", "otto", "nove", "dieci", "undici", "dodici"),
    "fr": ("deux", "trois", "quatre", "cinq", "six", "sept", "huit", "", "dix", "onze", "douze"),
    "de": ("zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf"),
}

# Ordinals from the second to the sixth, each in the forms the language writes.
_ORDINALS: dict[str, tuple[tuple[str, ...], ...]] = {
    "en": (("second", "twice"), ("third",), ("fourth",), ("fifth",), ("sixth",)),
    "es": (
        ("segundo", "segunda"),
        ("tercer", "tercero", "tercera"),
        ("cuarto", "cuarta"),
        ("quinto", "quinta"),
        ("sexto", "sexta"),
    ),
    "it": (("seconda",), ("terzo", "terza"), ("quarto", "quarta"), ("quinto", "quinta"), ("sesto", "sesta")),
    "fr": (("deuxième", "second", "seconde"), ("troisième",), ("quatrième",), ("cinquième",), ("sixième",)),
    "de": tuple(
        tuple(stem + ending for ending in ("e", "en", "er", "es", "em")) + extra
        for stem, extra in (
            ("zweit", ("zweimal",)),
            ("dritt", ("dreimal",)),
            ("viert", ("viermal",)),
            ("fünft", ()),
            ("sechst", ()),
        )
    ),
}

# Words for a half: what `// 2` says.
_HALF: dict[str, tuple[str, ...]] = {
    "en": ("half",),
    "es": ("mitad",),
    "it": ("metà",),
    "fr": ("moitié",),
    "de": ("hälfte", "halb", "halbe", "halben"),
}

# Loose words, by the number they may state.
_LOOSE: dict[str, dict[int, tuple[str, ...]]] = {
    "en": {1: ("a", "an", "one", "once", "first", "single"), 2: ("both", "pair")},
    "es": {1: ("un", "una", "uno", "primer", "primero", "primera"), 2: ("ambos", "ambas")},
    "it": {1: ("un", "una", "uno", "primo", "prima"), 2: ("entrambi", "entrambe", "secondo"), 6: ("sei",)},
    "fr": {1: ("un", "une", "premier", "première"), 9: ("neuf",)},
    "de": {
        1: ("ein", "eine", "einen", "einem", "einer", "eines", "eins", "einmal", "erste", "ersten", "erster"),
        2: ("beide", "beiden"),
    },
}

_WORD = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")


@cache
def _words(language: str) -> tuple[dict[str, int], dict[str, int]]:
    """The firm and the loose number words of a language, each with its number."""
    firm: dict[str, int] = {}
    for number, word in enumerate(_CARDINALS.get(language, ()), start=2):
        if word:
            firm[word] = number
    for number, forms in enumerate(_ORDINALS.get(language, ()), start=2):
        firm.update(dict.fromkeys(forms, number))
    firm.update(dict.fromkeys(_HALF.get(language, ()), 2))
    loose = {word: number for number, words in _LOOSE.get(language, {}).items() for word in words}
    return firm, loose


@lru_cache(maxsize=4096)
def where_stated(text: str, locale: str, number: int) -> int | None:
    """Where a text first states `number` firmly (in digits or a firm word): its offset (None:
    it does not)."""
    firm_words, _loose = _words(locale.split("-")[0])
    found = [m.start() for m in _DIGITS.finditer(text) if int(m.group()) == number]
    found += [m.start() for m in _WORD.finditer(text) if firm_words.get(m.group().lower()) == number]
    return min(found, default=None)


def stated_numbers(text: str, locale: str) -> tuple[frozenset[int], frozenset[int]]:
    """The numbers a text states: firmly (in digits, or in firm words), and loosely (in loose
    words, which may mean something else)."""
    firm_words, loose_words = _words(locale.split("-")[0])
    firm = {int(digits) for digits in _DIGITS.findall(text)}
    loose: set[int] = set()
    for word in _WORD.findall(text.lower()):
        if word in firm_words:
            firm.add(firm_words[word])
        elif word in loose_words:
            loose.add(loose_words[word])
    return frozenset(firm), frozenset(loose)
