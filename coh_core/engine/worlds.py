"""Worlds a seat cannot tell from the game it plays: everything it cannot see drawn again.

What a fair search plays out instead of the real game (`PlayerView.sample_world`, the expert bot,
OpenSpiel's `resample_from_infostate`): a fork of the real game would show the draws to come and
the others' hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coh_core.engine.rng import Rng

if TYPE_CHECKING:
    from coh_core.engine.game import Game


def sample_world(game: Game, me: str | None, rng: Rng, redraw_answers: bool = False) -> Game:
    """A fork of the game in which everything `me` cannot see is drawn again from `rng`.

    The entries of the piles hidden from `me` (by the pack's `sees`: a pile of a piece is seen by
    the piece's owner, as in the seat's view) are pooled by type, put in a fixed order (so the
    pool does not tell where each was) and dealt back at random into piles of the same sizes; the
    others' entries of memory seen by its owner only are forgotten, as are the entries of the log
    addressed to others only (each left as an entry `unseen`) and the others' past answers; the
    answers others have already given to the decision are forgotten (they answer again), or with
    `redraw_answers` drawn again among their legal answers (the same seats are left to answer: a
    sequence of answers to a simultaneous decision stays where it was); the game's generator is
    replaced; the seed and the starting state, which would tell every draw, are not kept. What
    the engine's frames hold is kept as it is.
    """
    world = game.fork()
    rules = world.rules
    pieces = world.pieces
    pools: dict[str, list[Any]] = {}
    slots: list[tuple[str, str, int]] = []  # (pile, owner, size) to deal back, in a fixed order
    for name in sorted(world.state["piles"]):
        pile = rules.piles[name]
        for owner in sorted(world.state["piles"][name]):
            if pile.seen_by(owner, me, pieces):
                continue
            held = world.state["piles"][name][owner]
            pools.setdefault(pile.of, []).extend(held)
            slots.append((name, owner, len(held)))
    for pool in pools.values():
        pool.sort(key=repr)
        rng.shuffle(pool)
    for name, owner, size in slots:
        pool = pools[rules.piles[name].of]
        dealt, pools[rules.piles[name].of] = pool[:size], pool[size:]
        world.state["piles"][name][owner][:] = dealt
    for name, spec in rules.memory.items():
        value = world.state["memory"][name]
        if spec.visible == "owner" and spec.per_player and isinstance(value, dict):
            for player in [p for p in value if p != me]:
                del value[player]
    # (a world is a fork with a journal of its own: its piles and memory changed since)
    world.journal.pile(*world.state["piles"])
    world.journal.remembered(*world.state["memory"])
    # what others alone saw, and what they answered before, is not the seat's to hold: an entry of
    # the log addressed to others keeps its place (the engine counts entries), not its content
    world.log = [e if "to" not in e or me in e["to"] else _unseen(e) for e in world.log]
    world.hide_answers(me)
    # nor is how the game was dealt: its seed and starting state would tell every draw
    world.state["seed"] = WORLD_SEED
    world.initial = {}
    decision = world.decision
    if decision is not None:
        decision.answers = {
            c: (decision.options[c][rng.randbelow(len(decision.options[c]))] if c != me else a)
            for c, a in decision.answers.items()
            if c == me or redraw_answers
        }
    world.rng = Rng(rng.next64())
    return world


UNSEEN = "unseen"  # the key of a log entry of a sampled world that only others saw
WORLD_SEED = 0  # a sampled world's seed (the game's would tell every draw; nothing plays from it)


def _unseen(entry: dict[str, Any]) -> dict[str, Any]:
    return {"key": UNSEEN, "turn": entry.get("turn"), "params": {}, "to": list(entry["to"])}
