"""What one player may know: the public table, their own hand and secrets, the log they saw."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coh_core.effects import ast
from coh_core.engine.observe import Memo, information_state, observer_for
from coh_core.engine.rng import Rng
from coh_core.engine.worlds import sample_world
from coh_core.packs.roles import place_sides

if TYPE_CHECKING:
    from coh_core.engine.game import Game
    from coh_core.engine.rules import Memory, Pile, Rules

VIEW_SEED = 0  # the generator that deals the hidden parts of the world a view reads


class PlayerView:
    """What one seat may know of a game at one decision (a spectator's, with no colour: what
    everyone may know); everything else stays hidden.

    A view holds no reference to the game: it reads a world drawn from it when it is made
    (`sample_world`, its hidden parts dealt by a fixed generator), which holds nothing the seat
    could not see, so it shows what it showed for as long as it is kept.
    """

    __slots__ = ("_world", "colour")

    def __init__(self, game: Game, colour: str | None):
        self._world = sample_world(game, colour, Rng(VIEW_SEED), redraw_answers=True)
        self.colour = colour

    @property
    def decision(self) -> dict[str, Any] | None:
        decision = self._world.decision
        if decision is None or self.colour not in decision.options:
            return None
        return decision.to_json(self.colour)

    def log(self) -> list[dict[str, Any]]:
        return [e for e in self._world.log if "to" not in e or self.colour in e["to"]]

    def places(self) -> list[Any]:
        """Where each entry of `log()` was written (`Game.places`), for the narrative's headings."""
        game = self._world
        return [
            p for e, p in zip(game.log, game.places, strict=True) if "to" not in e or self.colour in e["to"]
        ]

    def sample_world(self, rng: Rng, redraw_answers: bool = False) -> Game:
        """A game the seat cannot tell from this one: everything it cannot see drawn again from
        `rng` (`coh_core.engine.worlds.sample_world`; of a spectator's view, everything no seat
        sees). What a search plays out, never the game itself."""
        return sample_world(self._world, self.colour, rng, redraw_answers)

    def observation(self) -> array[float]:
        """The seat's observation vector, laid out as `coh_core.engine.observe` says."""
        world = self._world
        return observer_for(world.rules, world.players).observe(seen_parts(world, self.colour))

    def information_state(self) -> str:
        """What the seat knows, as one string (`coh_core.engine.observe.information_state`)."""
        return information_state(self.to_json(), self.log())

    def to_json(self) -> dict[str, Any]:
        state = self._world.state
        me = self.colour
        return {
            "me": me,
            "players": list(state["players"]),
            "turn": state["turn"],
            "phase": state["phase"],
            "step": state["step"],
            "at": state["at"],
            "first": self._world.first_player(),
            "pointers": dict(state["pointers"]),  # every pointer is on the table
            "cycles": {name: list(cycle) for name, cycle in state["cycles"].items()},  # and its cycle
            "eliminated": self._world.out_of_game(),
            "locations": {loc: _location(place) for loc, place in state["locations"].items()},
            "pieces": {kind: _pieces(of_kind) for kind, of_kind in state["pieces"].items()},
            "piece_roles": dict(self._world.rules.piece_roles),
            "counts": {place: dict(counts) for place, counts in state["counts"].items()},
            "piles": seen_piles(self._world, me),
            "pile_sizes": pile_sizes(self._world),
            "roles": dict(self._world.rules.roles),
            "memory": seen_memory(self._world, me),
            # the states of the edges of the pack's graphs: on the table, seen by everyone
            "edges": {name: dict(edges) for name, edges in state.get("edges", {}).items()},
            "result": _copied(state["result"]),
            "decision": self.decision,
            "thresholds": thresholds(self._world.rules, state["locations"]),
            "conditions": conditions(self._world.rules, state["locations"]),
            "extra_places": self._extra_places(),
        }

    def _extra_places(self) -> dict[str, int]:
        """Per location, its living characters that hold an extra place there (`holds_extra_place`,
        ruling 13): they are not counted against its capacity. Locations with none are left out."""
        game = self._world
        found: dict[str, int] = {}
        for character, ch in game.pieces.items():
            if ch["alive"] and ch["at"] is not None and game.holds_extra_place(character):
                found[ch["at"]] = found.get(ch["at"], 0) + 1
        return found


def observation(game: Game, colour: str | None, memo: Memo | None = None) -> array[float]:
    """The seat's observation of the game as it stands: what `game.view(colour).observation()`
    gives, without making a view. With a `memo` of the seat's last observation (the caller keeps
    one per seat), only the fields whose part of the view changed since are worked out again
    (of those the game's journal says unchanged, none is even read)."""
    observer = observer_for(game.rules, game.state["players"])
    return observer.observe(seen_parts(game, colour), memo, game.journal)


def seen_parts(game: Game, colour: str | None) -> Mapping[str, Any]:
    """The parts of the seat's view the observation reads (`PlayerView.to_json`), sharing the
    game's data instead of copying it: the same values, worked out as `to_json` works them out
    when read (a part the observation does not read is not worked out), only to be read at once."""
    return _SeenParts(game, colour)


def seen_piles(game: Game, colour: str | None) -> dict[str, dict[str, list[Any]]]:
    """The entries of the piles the seat may see (`sees` in the pack's piles), copied: every
    one's, the seat's own, or none; of the others the view has only their sizes (`pile_sizes`)."""
    return {
        name: {owner: list(held) for owner, held in part.items() if isinstance(held, list)}
        for name, part in pile_parts(game, colour).items()
    }


def pile_parts(game: Game, colour: str | None) -> dict[str, dict[str, list[Any] | int]]:
    """Per pile, what the seat knows of each of its piles: its entries where the seat sees them,
    else how many it holds; shared with the game, only to be read at once."""
    return {name: pile_part(game, colour, name) for name in game.state["piles"]}


def pile_part(game: Game, colour: str | None, name: str) -> dict[str, list[Any] | int]:
    """`pile_parts` of one pile."""
    piles: dict[str, list[Any]] = game.state["piles"][name]
    pile, seen = _shown_piles(game.rules)[name]
    if seen == _EVERYONE:
        return piles  # type: ignore[return-value]  # (lists only: each seen)
    if seen == _NOBODY:
        return dict(zip(piles, map(len, piles.values()), strict=True))
    if seen == _OWNER:
        return {owner: held if owner == colour else len(held) for owner, held in piles.items()}
    pieces = game.pieces
    return {
        owner: held if pile.seen_by(owner, colour, pieces) else len(held) for owner, held in piles.items()
    }


_EVERYONE, _NOBODY, _OWNER, _PIECE_OWNER = range(4)  # whose entries of a pile a seat sees


def _shown_piles(rules: Rules) -> dict[str, tuple[Pile, int]]:
    """Per pile, its declaration and whose entries a seat sees, worked out once per ruleset."""
    found: dict[str, tuple[Pile, int]] | None = rules.derived.get("view_piles")
    if found is None:
        found = rules.derived["view_piles"] = {
            name: (
                pile,
                _EVERYONE
                if pile.sees == "everyone"
                else _NOBODY
                if pile.sees != "owner"
                else _PIECE_OWNER
                if pile.per_piece
                else _OWNER,
            )
            for name, pile in rules.piles.items()
        }
    return found


def pile_sizes(game: Game) -> dict[str, dict[str, int]]:
    """How many entries each pile holds, every pile's (on the table for everyone)."""
    piles = game.state["piles"]
    return {name: {owner: len(held) for owner, held in kept.items()} for name, kept in piles.items()}


def seen_memory(game: Game, colour: str | None, copy: bool = True) -> dict[str, Any]:
    """What the game remembers that the seat may see, as the pack declares it (`visible`):
    everyone's value, the seat's own only, or nothing; an entry of a player answering the
    question it is `hidden_while_asked` by is that player's only."""
    found: dict[str, Any] = {}
    for name, spec in game.rules.memory.items():
        if not spec.unseen:
            value = seen_entry(game, colour, spec)
            found[name] = _copied(value) if copy else value
    return found


def seen_entry(game: Game, colour: str | None, spec: Memory) -> Any:
    """`seen_memory` of one entry the seat sees something of (not `spec.unseen`), shared with the game."""
    value = game.state["memory"][spec.name]
    if spec.visible == "owner":
        return {colour: value[colour]} if colour in value else {}
    decision = game.decision
    if decision is not None and decision.kind == spec.hidden_while_asked:
        return {p: v for p, v in value.items() if p == colour or p not in decision.options}
    return value


def _state_part(key: str) -> Callable[[Game, str | None], Any]:
    def read(game: Game, colour: str | None) -> Any:
        return game.state[key]

    return read


def _edges_part(game: Game, colour: str | None) -> Any:
    return game.state.get("edges", {})


def _out_part(game: Game, colour: str | None) -> list[str]:
    return game.out_of_game()


class _Seen(Mapping[str, Any]):
    """A part of `seen_parts` that maps names to entries (the piles, the memory): each entry
    worked out as it is read."""

    __slots__ = ("colour", "game")

    def __init__(self, game: Game, colour: str | None):
        self.game = game
        self.colour = colour

    def __len__(self) -> int:
        return sum(1 for _name in self)


class _SeenPiles(_Seen):
    __slots__ = ()

    def __getitem__(self, name: str) -> dict[str, list[Any] | int]:
        return pile_part(self.game, self.colour, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.game.state["piles"])


class _SeenMemory(_Seen):
    __slots__ = ()

    def __getitem__(self, name: str) -> Any:
        spec = self.game.rules.memory[name]
        if spec.unseen:
            raise KeyError(name)
        return seen_entry(self.game, self.colour, spec)

    def __iter__(self) -> Iterator[str]:
        return (name for name, spec in self.game.rules.memory.items() if not spec.unseen)


def _decision_part(game: Game, colour: str | None) -> dict[str, Any] | None:
    decision = game.decision
    return {"kind": decision.kind} if decision is not None and colour in decision.options else None


# Each part of `seen_parts`: how it is worked out of the game for a seat.
_PARTS: dict[str, Callable[[Game, str | None], Any]] = {
    "me": lambda game, colour: colour,
    **{key: _state_part(key) for key in ("turn", "phase", "pointers")},
    "eliminated": _out_part,
    **{key: _state_part(key) for key in ("locations", "pieces", "counts")},
    "piles": _SeenPiles,
    "memory": _SeenMemory,
    "edges": _edges_part,
    "decision": _decision_part,
}


class _SeenParts(Mapping[str, Any]):
    """`seen_parts`: each part worked out as it is read."""

    __slots__ = ("colour", "game")

    def __init__(self, game: Game, colour: str | None):
        self.game = game
        self.colour = colour

    def __getitem__(self, key: str) -> Any:
        return _PARTS[key](self.game, self.colour)

    def __iter__(self) -> Iterator[str]:
        return iter(_PARTS)

    def __len__(self) -> int:
        return len(_PARTS)


def _copied(value: Any) -> Any:
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def _location(place: dict[str, Any]) -> dict[str, Any]:
    return {k: _copied(v) for k, v in place.items()}


def _pieces(of_kind: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {piece: _piece(held) for piece, held in of_kind.items()}


def _piece(ch: dict[str, Any]) -> dict[str, Any]:
    return {k: _copied(v) for k, v in ch.items()}  # (its traits too: the game changes them in place)


# -- Thresholds: the counts at which a location's side fires a trigger --------------------------


@dataclass(frozen=True)
class Threshold:
    """A trigger of a side whose condition is a count at its location compared with a constant:
    it fires once `counter` there reaches `at` (on `event`); `trigger` is its place in the side's
    `triggers`."""

    side: str
    counter: str
    at: int
    event: str
    trigger: int

    def to_json(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "counter": self.counter,
            "at": self.at,
            "event": self.event,
            "trigger": self.trigger,
        }


# A comparison `count OP n` as the smallest count that holds it (None: it holds of no count, or
# of counts downward, which "reaching" a threshold does not describe).
_REACHED = {">=": lambda n: n, ">": lambda n: n + 1, "==": lambda n: n}
_MIRRORED = {"<=": ">=", "<": ">", "==": "=="}  # `n OP count` read as `count OP' n`
_HERE = "here"  # the name a location's trigger binds to its location
_COUNT_OF = "count_of"  # the built-in selector `count_of(kind, place)`
_DEPTH = 8  # how deep pack selectors calling pack selectors are followed
_DERIVED = "view_thresholds"  # their name in `Rules.derived`
_DERIVED_CONDITIONS = "view_conditions"
# The built-in selector `characters(at)`: how many pieces stand at a place, which a condition may
# compare a count with (`tokens(here) > characters(here)`).
_PIECES_AT = "characters"
_PIECES = "pieces"  # a count of the pieces at the place, as a condition's view gives it
_MORE = {">": ">", ">=": ">="}  # the comparisons with the pieces there that a view gives


def thresholds(rules: Rules, locations: Mapping[str, Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per location, the thresholds of its current side (locations without any left out)."""
    found = {}
    for location, sides in _side_thresholds(rules).items():
        held = sides.get(locations[location]["side"]) if location in locations else None
        if held:
            found[location] = [dict(t) for t in held]
    return found


def _side_thresholds(rules: Rules) -> dict[str, dict[str, tuple[dict[str, Any], ...]]]:
    """Per location and side, the thresholds as the view gives them, worked out once per
    compiled pack (a bot asks for a view at every decision)."""
    cached: dict[str, dict[str, tuple[dict[str, Any], ...]]] | None = rules.derived.get(_DERIVED)
    if cached is not None:
        return cached
    found: dict[str, dict[str, tuple[dict[str, Any], ...]]] = {}
    for (location, side), held in find_thresholds(rules).items():
        found.setdefault(location, {})[side] = tuple(t.to_json() for t in held)
    rules.derived[_DERIVED] = found
    return found


@dataclass(frozen=True)
class Condition:
    """A side's condition of role `place_condition` (written in `context`) that compares a count
    at its location with a number or with the pieces there: it holds once `counter` there reaches
    `at`, or once it is more than the pieces there (`pieces` `>`), or as many (`>=`)."""

    side: str
    context: str
    counter: str
    at: int | None = None
    pieces: str | None = None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"side": self.side, "context": self.context, "counter": self.counter}
        if self.at is not None:
            found["at"] = self.at
        if self.pieces is not None:
            found[_PIECES] = self.pieces
        return found


def conditions(rules: Rules, locations: Mapping[str, Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per location, the condition of its current side read as a count compared (`find_conditions`);
    locations without one left out. Worked out once per compiled pack."""
    cached: dict[tuple[str, str], dict[str, Any]] | None = rules.derived.get(_DERIVED_CONDITIONS)
    if cached is None:
        cached = {where: c.to_json() for where, c in find_conditions(rules).items()}
        rules.derived[_DERIVED_CONDITIONS] = cached
    found = {}
    for location, place in locations.items():
        held = cached.get((location, place["side"]))
        if held is not None:
            found[location] = [dict(held)]
    return found


def find_conditions(rules: Rules) -> dict[tuple[str, str], Condition]:
    """Each side's condition (role `place_condition`) that compares a count at the location with a
    number or with the pieces there (through the pack's own selectors)."""
    pack = rules.pack
    trees = {(id(c.slot.doc), c.slot.path): c.tree for c in pack.effects}
    reader = _reader(rules, trees)
    found: dict[tuple[str, str], Condition] = {}
    for side in place_sides(pack, rules.declared):
        role = side.roles.condition
        tree = trees.get((id(side.place.doc), (*side.path, role.field))) if role is not None else None
        if role is None or tree is None:
            continue
        where, number, beyond = (side.place.id, side.name), reader.threshold(tree), reader.beyond_pieces(tree)
        if number is not None:
            found[where] = Condition(side.name, role.context, number[0], at=number[1])
        elif beyond is not None:
            found[where] = Condition(side.name, role.context, beyond[0], pieces=beyond[1])
    return found


def _reader(rules: Rules, trees: Mapping[tuple[int, Any], Any]) -> _CountReader:
    """A reader of the pack's counts, following its own selectors."""
    pack = rules.pack
    selectors = {verb.id: verb for verb in pack.entities_of("verb")}
    bodies = {name: trees.get((id(verb.doc), (*verb.path, "do"))) for name, verb in selectors.items()}
    params = {
        name: list(given) if isinstance(given := verb.data.get("params"), Mapping) else []
        for name, verb in selectors.items()
    }
    return _CountReader(set(rules.counters), params, bodies)


def find_thresholds(rules: Rules) -> dict[tuple[str, str], tuple[Threshold, ...]]:
    """Each side's triggers whose condition compares a count at the location with a constant."""
    pack = rules.pack
    trees = {(id(c.slot.doc), c.slot.path): c.tree for c in pack.effects}
    reader = _reader(rules, trees)
    found: dict[tuple[str, str], tuple[Threshold, ...]] = {}
    for side in place_sides(pack, rules.declared):
        triggers = side.roles.triggers
        if triggers is None:
            continue
        held = []
        for position, trigger in enumerate(side.data.get(triggers.field) or []):
            tree = trees.get((id(side.place.doc), (*side.path, triggers.field, position, "if")))
            reached = reader.threshold(tree) if tree is not None else None
            if reached is not None:
                counter, at = reached
                held.append(Threshold(side.name, counter, at, str(trigger["event"]), position))
        if held:
            found[(side.place.id, side.name)] = tuple(held)
    return found


class _CountReader:
    """Reads a condition as `a count at here` compared with a number, following the pack's own
    selectors (`tokens(here)` returning `count_of(tokens, at)`)."""

    def __init__(self, counters: set[str], params: Mapping[str, list[str]], bodies: Mapping[str, Any]):
        self.counters = counters
        self.params = params  # each pack selector's parameters, in order
        self.bodies = bodies  # and its body

    def threshold(self, tree: Any) -> tuple[str, int] | None:
        """(counter, the count it fires at), or None when the condition is no such comparison."""
        if not isinstance(tree, ast.BinOp):
            return None
        op, count, number = tree.op, tree.left, tree.right
        if isinstance(count, ast.IntLit) and op in _MIRRORED:
            op, count, number = _MIRRORED[op], number, count
        if op not in _REACHED or not isinstance(number, ast.IntLit):
            return None
        counter = self.counter(count, frozenset({_HERE}), _DEPTH)
        return None if counter is None else (counter, _REACHED[op](number.value))

    def beyond_pieces(self, tree: Any) -> tuple[str, str] | None:
        """(counter, `>` or `>=`) when the condition compares a count at here with the pieces
        there (`count > characters(here)`, either way round), else None."""
        if not isinstance(tree, ast.BinOp):
            return None
        op, count, pieces = tree.op, tree.left, tree.right
        if self.pieces(count, frozenset({_HERE}), _DEPTH) and op in _MIRRORED:
            op, count, pieces = _MIRRORED[op], pieces, count
        if op not in _MORE or not self.pieces(pieces, frozenset({_HERE}), _DEPTH):
            return None
        counter = self.counter(count, frozenset({_HERE}), _DEPTH)
        return None if counter is None else (counter, _MORE[op])

    def pieces(self, expr: Any, here: frozenset[str], depth: int) -> bool:
        """Whether `expr` counts the pieces at the location (`here` names it)."""
        if not isinstance(expr, ast.Call) or depth <= 0:
            return False
        if expr.name == _PIECES_AT:
            return _names(_arguments(expr, ["at"]).get("at"), here)
        followed = self._returned(expr, here)
        return followed is not None and self.pieces(*followed, depth - 1)

    def counter(self, expr: Any, here: frozenset[str], depth: int) -> str | None:
        """The kind of counter `expr` counts at the location (`here` names it), or None."""
        if not isinstance(expr, ast.Call) or depth <= 0:
            return None
        if expr.name == _COUNT_OF:
            given = _arguments(expr, ["kind", "at"])
            kind, place = given.get("kind"), given.get("at")
            if isinstance(kind, ast.Name) and kind.name in self.counters and _names(place, here):
                return kind.name
            return None
        followed = self._returned(expr, here)
        return None if followed is None else self.counter(*followed, depth - 1)

    def _returned(self, call: ast.Call, here: frozenset[str]) -> tuple[Any, frozenset[str]] | None:
        """What a pack selector of one `return` returns, and its parameters that name the location."""
        body = self.bodies.get(call.name)
        if not isinstance(body, ast.Block) or len(body.statements) != 1:
            return None
        (statement,) = body.statements
        if not isinstance(statement, ast.Return) or statement.value is None:
            return None
        given = _arguments(call, self.params.get(call.name, []))
        return statement.value, frozenset(n for n, v in given.items() if _names(v, here))


def _arguments(call: ast.Call, params: list[str]) -> dict[str, Any]:
    """The call's arguments by parameter name (positional ones in the parameters' order)."""
    given: dict[str, Any] = {}
    for position, arg in enumerate(call.args):
        name = arg.keyword or (params[position] if position < len(params) else None)
        if name is not None:
            given[name] = arg.value
    return given


def _names(expr: Any, names: frozenset[str]) -> bool:
    """Whether the expression is a bare name among these."""
    return isinstance(expr, ast.Name) and expr.name in names
