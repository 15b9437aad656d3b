"""Bounds on what a pack, or a person at the terminal, can make one game do.

Packs come from strangers. Each bound turns what would otherwise eat memory or run without
end into a located error: `EFF-RANGE` from `coh validate` where the source shows it, else
`ENGINE-LIMIT` at play time, at the effect that went past it. Every bound is far above what
a real game needs.
"""

from __future__ import annotations

MAX_OPTIONS = 1_000  # answers offered in one decision (a `choose`, a `choose_number` range)
MAX_NUMBER = 1_000_000_000  # magnitude of a number an effect writes or computes
MAX_LOOP_STEPS = 10_000  # `for` iterations in one run of one effect (one playability check shares them)
CASCADE_LIMIT = 64  # triggers fired by one action
MAX_WINDOW_ACTIONS = 1_000  # plays, powers and gifts in one timing window
MAX_DECISIONS = 100_000  # answers in one game
MAX_ANSWER_CHARS = 1_000  # characters of one answer typed at the terminal (the rest is dropped)
