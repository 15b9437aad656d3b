"""Bounds on what a pack, a record, or a person at the terminal can make coh do.

Packs and records come from strangers. Each bound turns what would otherwise read outside
the pack, eat memory or run without end into a located error: `PACK-PATH`, `PACK-LIMIT` and
`YAML-LIMIT` while a pack is read, `EFF-LIMIT`, `EFF-RANGE` and `EFF-COST` from `coh validate`
where the source shows it, else `ENGINE-LIMIT` at play time, at the effect that went past it. Every
bound is far above what a real pack or game needs. docs/bad-input.md lists them.
"""

from __future__ import annotations

# Reading a pack
MAX_PATH_CHARS = 1024  # a file name in a manifest, as written
MAX_NAME_BYTES = 255  # one folder or file name, in UTF-8 (the common file-system limit)
MAX_FILE_BYTES = 8 * 2**20  # one YAML file
MAX_PACK_BYTES = 64 * 2**20  # all the files of one pack together
MAX_YAML_DEPTH = 64  # mappings and lists nested in each other
MAX_YAML_VALUES = 1_000_000  # values in one YAML file, aliases expanded
MAX_ALIAS_VALUES = 100_000  # of those, values that aliases add
MAX_YAML_INTEGER = 2**63 - 1  # integers in YAML data are 64-bit
MAX_INTEGER_CHARS = 100  # a longer integer literal is refused before it is converted
MAX_EFFECT_NESTING = 48  # expressions and blocks of an effect inside each other
MAX_DEFAULT_NESTING = 8  # defaults worked out inside each other (a default that leaves one out)

# Reading a game record (`coh replay`)
MAX_RECORD_BYTES = 64 * 2**20
MAX_LINES = 100_000  # a whole game is some hundreds; bounds the work on a file of blank lines
MAX_LINE_CHARS = 2**20  # one line is parsed at once: bounds the memory of one parse
MAX_RECORD_DEPTH = 64  # containers inside containers; a record line nests 5 deep at most
MAX_INT_DIGITS = 64  # a record's integers fit in 64 bits (20 digits); Python stops at 4300

# Playing
MAX_OPTIONS = 1_000  # answers offered in one decision (a `choose`, a `choose_number` range)
MAX_NUMBER = 1_000_000_000  # magnitude of a number an effect writes or computes
MAX_LIST_ITEMS = 10_000  # items of a list or map an effect builds, those of the ones inside it included
MAX_LOOP_STEPS = 10_000  # `for` iterations in one run of one effect (one playability check shares them)
MAX_FRAMES = 1_000  # programs running inside each other (windows, triggers firing triggers, verbs)
MAX_VERB_NESTING = 64  # pack verbs running inside each other (`EFF-LIMIT` when validating)
MAX_WORK = 1_000_000  # pack verbs run between two decisions; one call's count is checked when validating
CASCADE_LIMIT = 64  # triggers fired by one action
MAX_WINDOW_ACTIONS = 1_000  # plays, powers and gifts in one timing window
MAX_DECISIONS = 100_000  # answers in one game
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1  # a game's seed, as a game record holds it (64 bits)
MAX_ANSWER_CHARS = 1_000  # characters of one answer typed at the terminal (the rest is dropped)

# The bots' budgets, given on the command line or read from a save
MAX_EXPERT_ITERATIONS = 100_000  # the expert's tree iterations per decision (a few dozen play well)
MAX_EXPERT_SECONDS = 600.0  # the expert's seconds per decision

# Simulating (`coh simulate`)
MAX_WORKERS = 1_024  # worker processes (each a copy of the command's): far above a machine's cores
