"""A pack compiled for play: its tables, and every effect turned into closures, built once."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from coh_core.effects import ast
from coh_core.effects.registry import LOCATION_TYPE, Declarations, context_spec, signatures
from coh_core.engine.compile.lowering import Compiler
from coh_core.engine.compile.model import COMPILED, CompiledBlock, Fn
from coh_core.engine.flow import Flow, engine_programs
from coh_core.engine.graphs import Graph, graphs_of
from coh_core.engine.machine import Program
from coh_core.engine.runtime import EngineError
from coh_core.errors import Location
from coh_core.packs.declarations import declarations_of
from coh_core.packs.model import CompiledEffect, Entity, Pack
from coh_core.packs.pack_data import entries_with_defaults, ids_of_type
from coh_core.packs.results import ResultSpec, result_of
from coh_core.packs.roles import KindRoles, Role, StateRoles, kind_roles
from coh_core.packs.yamlsrc import Path_

_UNKNOWN = object()  # not found in a cache (where None is a value)
_BARE_SIDES = "bare_sides"  # in `Rules.derived`: the side of each place without sides


@dataclass(frozen=True)
class Playable:
    """A power, an action card or a location's activation: when, whether, what it costs, what it does."""

    owner: str
    window: str
    condition: Fn | None
    cost: CompiledBlock | None
    effect: CompiledBlock | None


@dataclass(frozen=True)
class Trigger:
    owner: str  # entity id, `location/side`, or `turn`
    event: str
    condition: Fn | None
    effect: CompiledBlock
    after_action: bool


@dataclass(frozen=True)
class TriggerIndex:
    """The pack's triggers as a game looks them up: worked out once per pack (`Rules.trigger_index`)
    and shared, read only, by its games."""

    rules_by_event: dict[str, list[Trigger]]  # the triggers that belong to no card, by event
    listening: dict[str, list[str]]  # event -> characters with a trigger on it
    by_id: dict[str, Trigger]  # every trigger, by the id of its effect's program
    side_events: set[str]  # events some side of a location has a trigger on


@dataclass(frozen=True)
class Side:
    location: str
    name: str
    data: dict[str, Any]
    capacity: int | None  # None: unlimited
    closed: bool
    locked: bool
    activation: Playable | None
    attack_if: Fn | None
    triggers: tuple[Trigger, ...]


@dataclass(frozen=True)
class Counter:
    """A kind of counter the pack declares: where its supply is, how many, its name as an item."""

    kind: str
    supply_at: str
    supply: int | None  # None: the supply never runs out
    item: str | None  # the name one of them has in a gift or a share; None: not an item


PLAYER_OWNED = frozenset({"game", "player", "location"})  # how a pile is kept when not per piece


@dataclass(frozen=True)
class Pile:
    """A pile the pack declares: an ordered collection of cards or tokens, the last on top."""

    name: str
    of: str  # the type of its entries
    per: str  # game (one pile, its owner ""), player or location
    sees: str  # who sees its entries: everyone, owner or nobody (the others see how many)
    start: str | None = None  # the list of the components section it starts with
    shuffled: bool = False  # whether those are shuffled when the game begins
    role: str | None = None  # hand, played or items: what the engine itself does with it
    size: int | None = None  # how many entries each of its piles holds at most (None: any number)

    @property
    def per_piece(self) -> bool:
        """Whether one pile is kept for each piece of a kind (`per` names the kind): the piece's
        owner sees a pile of `sees: owner`."""
        return self.per not in PLAYER_OWNED

    @property
    def alike(self) -> bool:
        """Whether every seat sees the same of it: its entries (everyone sees them) or its sizes."""
        return self.sees != "owner"

    def seen_by(self, owner: str, seat: str | None, pieces: Mapping[str, Mapping[str, Any]]) -> bool:
        """Whether `seat` sees the entries of this pile kept for `owner`: a pile everyone sees, or
        one its owner sees kept for the seat (of a pile per piece, for one of the seat's pieces)."""
        if self.sees == "everyone":
            return True
        held_by = pieces.get(owner, {}).get("owner") if self.per_piece else owner
        return self.sees == "owner" and held_by == seat


def pile_size_of(size: Any, params: Mapping[str, Any]) -> int | None:
    """A pile's declared `size` as a number: written so, or the value of the rule parameter it names
    (None: the pile holds any number; a size `coh validate` refused is taken as none)."""
    if isinstance(size, str):
        declared = params.get(size)
        size = declared.get("value") if isinstance(declared, Mapping) else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None


def pile_owners(rules: Rules, per: str, seats: list[str], order: list[str]) -> list[str]:
    """Whose piles a pile kept `per` this has: "" (the game's), the seats, the locations in
    resolution order, or every entity of a kind of pieces (by id, dealt or not)."""
    if per == "game":
        return [""]
    if per == "player":
        return seats
    if per == "location":
        return order
    pieces = (rules.components.get("pieces") or {}).get(per) or {}
    return sorted(rules.pack.entities.get(str(pieces.get("of")), {}))


@dataclass(frozen=True)
class Pointer:
    """A token the pack declares that points at one entry of a cycle (`components: pointers`)."""

    name: str
    cycle: str  # `seats`, or a list of colours of the components section


@dataclass(frozen=True)
class PieceKind:
    """A kind of piece the pack declares (`components: pieces`): each an entity of one kind, owned by
    a player, at a place, rested or exhausted, alive or not, with traits given during play."""

    name: str
    of: str  # the kind of entity each piece is (its id is the entity's)
    role: str | None  # what the engine does with these pieces: `players` (they move, vote and die)


@dataclass(frozen=True)
class Memory:
    """A value the game remembers, as the pack declares it (`components: memory`)."""

    name: str
    per_player: bool  # each player's own value, in a map by player
    empty: Any  # what it holds before anything is remembered, and once forgotten
    turn: bool  # forgotten at the end of each turn
    visible: str  # who sees it in the players' views: all, owner or none
    hidden_while_asked: str | None  # a question: the entry of a player answering it is the player's only
    role: str | None = None  # what the engine itself keeps in it (`out_of_game`, `last_to_lose`)
    set_by: str | None = None  # the verb whose step sets it each turn (for rules scenarios)
    read_by: str | None = None  # the verb whose step reads it (for rules scenarios)

    @property
    def unseen(self) -> bool:
        """Whether no seat sees it (`visible: none`, or the owner's of a value not per player)."""
        return self.visible == "none" or (self.visible == "owner" and not self.per_player)

    @property
    def alike(self) -> bool:
        """Whether every seat sees the same of it: nothing, or everyone's value with nothing hidden
        while a question is asked."""
        return self.unseen or (self.visible != "owner" and self.hidden_while_asked is None)


@dataclass(frozen=True)
class Step:
    id: str
    key: str  # text key of its name
    run: CompiledBlock
    required: bool = False  # it must act: finding nothing to act on stops the game (ENGINE-STEP)


@dataclass(frozen=True)
class Phase:
    id: str
    per_location: bool
    steps: tuple[Step, ...]


@dataclass
class Rules:
    pack: Pack
    trait_values: dict[str, dict[str, Any]] = field(default_factory=dict)  # a piece's own, by its id
    powers: dict[str, Playable] = field(default_factory=dict)
    character_triggers: dict[str, tuple[Trigger, ...]] = field(default_factory=dict)
    cards: dict[str, Playable] = field(default_factory=dict)
    card_counts: dict[str, int] = field(default_factory=dict)
    sides: dict[tuple[str, str], Side] = field(default_factory=dict)
    setup_steps: tuple[Step, ...] = ()
    phases: tuple[Phase, ...] = ()
    end_steps: tuple[Step, ...] = ()
    rule_triggers: tuple[Trigger, ...] = ()
    turns: int = 4
    params: dict[str, Any] = field(default_factory=dict)  # rule parameters by name: their values
    declared: Declarations = field(default_factory=Declarations)  # enumerations, traits, events...
    result: ResultSpec | None = None  # what a game comes to (None: the pack declares no result)
    components: dict[str, Any] = field(default_factory=dict)
    places: tuple[str, ...] = ()  # places the pack names, besides locations and players
    counters: dict[str, Counter] = field(default_factory=dict)  # kinds of counters, by name
    pointers: dict[str, Pointer] = field(default_factory=dict)  # by name
    turn_pointer: str | None = None  # the pointer the turn order starts at (None: the first seat)
    memory: dict[str, Memory] = field(default_factory=dict)  # by name
    turn_memory: tuple[str, ...] = ()  # the memory forgotten at the end of each turn
    memory_roles: dict[str, str] = field(default_factory=dict)  # a memory's role -> the memory
    trait_roles: dict[str, str] = field(default_factory=dict)  # a trait's role -> the trait
    piece_kinds: dict[str, PieceKind] = field(default_factory=dict)  # kinds of pieces, by name
    piece_roles: dict[str, str] = field(default_factory=dict)  # a kind of pieces' role -> the kind
    pieces_of: dict[str, str] = field(default_factory=dict)  # a kind of entity -> its kind of pieces
    pieces_of_type: dict[str, str] = field(default_factory=dict)  # the type of its `@id`s -> the same
    items: dict[str, str] = field(default_factory=dict)  # a counter's name as an item -> its kind
    piles: dict[str, Pile] = field(default_factory=dict)  # the piles, by name, in declaration order
    graphs: dict[str, Graph] = field(default_factory=dict)  # the graphs, by name, in declaration order
    # the graphs whose edges' states the state keeps (`state["edges"]`): those with edges with states
    stateful_graphs: tuple[str, ...] = ()
    roles: dict[str, str] = field(default_factory=dict)  # a pile's role -> the pile
    hand_pile: str | None = None  # the pile of role `hand` (read at every offer: kept at hand)
    setup: dict[str, Any] = field(default_factory=dict)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # every entity's data, by id
    ids: dict[str, list[str]] = field(default_factory=dict)  # per type of entity, its ids sorted
    programs: dict[str, Program] = field(default_factory=dict)  # every compiled program, by its id
    flow: Flow | None = None  # the game's flow, built from the steps above
    # trait_default's answers, by (character, trait): the pack does not change during play
    _trait_defaults: dict[tuple[str, str], Any] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # facts other modules work out from the pack on first use, by name (e.g. the views' thresholds);
    # kept here because a compiled build's `Rules` cannot be weakly referenced
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    # usable_in's answers, by windows
    _usable: dict[tuple[str, ...], tuple[frozenset[str], frozenset[str]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def usable_in(self, windows: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
        """The kinds of card that may be played, and the characters whose power may be used, in these
        windows (worked out once: windows are asked about again and again)."""
        found = self._usable.get(windows)
        if found is None:
            found = self._usable[windows] = (
                frozenset(kind for kind, card in self.cards.items() if card.window in windows),
                frozenset(character for character, power in self.powers.items() if power.window in windows),
            )
        return found

    def trigger_index(self) -> TriggerIndex:
        """The triggers by event, by id and by who listens (worked out on first use: the pack does
        not change during play)."""
        found: TriggerIndex | None = self.derived.get("trigger_index")
        if found is None:
            by_event: dict[str, list[Trigger]] = {}
            for trigger in self.rule_triggers:
                by_event.setdefault(trigger.event, []).append(trigger)
            listening: dict[str, list[str]] = {}
            for character, triggers in self.character_triggers.items():
                for event in dict.fromkeys(t.event for t in triggers):
                    listening.setdefault(event, []).append(character)
            every = [
                *self.rule_triggers,
                *(t for side in self.sides.values() for t in side.triggers),
                *(t for triggers in self.character_triggers.values() for t in triggers),
            ]
            found = self.derived["trigger_index"] = TriggerIndex(
                by_event,
                listening,
                {trigger.effect.program.id: trigger for trigger in every},
                {t.event for side in self.sides.values() for t in side.triggers},
            )
        return found

    def trait_default(self, character: str, trait: str) -> Any:
        found = self._trait_defaults.get((character, trait), _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        own = self.trait_values.get(character) or {}
        if trait in own:
            found = own[trait]
        else:
            spec = self.declared.traits.get(trait)
            if spec is None:  # the engine's own procedures read traits by name (until the pack writes them)
                raise EngineError(
                    "ENGINE-DECLARATION",
                    f"the engine reads the trait `{trait}`, which the pack does not declare (`traits`)",
                    self.declared_at("traits", trait),
                )
            found = spec.default
        self._trait_defaults[(character, trait)] = found
        return found

    def check_names(self, section: str, name: str, given: Collection[str]) -> None:
        """The names the pack declares for an event or window are among those the engine gives.

        The engine's own procedures emit events and open windows with names of their own (until
        the pack writes them): a declaration that asks for others would leave them unbound.
        """
        declared = self.declared.events if section == "events" else self.declared.windows
        spec = declared.get(name)
        if spec is None or not spec.bindings:  # most bind nothing: nothing to check
            return
        lacking = [bound for bound in spec.bindings if bound not in given]
        if lacking:
            what = section[:-1]
            offered = ", ".join(f"`{g}`" for g in given) or "none"
            raise EngineError(
                "ENGINE-DECLARATION",
                f"the pack's {what} `{name}` binds {', '.join(f'`{b}`' for b in lacking)}, which the"
                f" engine does not give (it gives {offered})",
                self.declared_at(section, name),
            )

    def declared_at(self, section: str, name: str) -> Location:
        """Where the pack declares a trait, event or window (or would: the section, the manifest)."""
        found = self.pack.sections.get(section)
        if found is None:
            return self.pack.manifest_doc.location(())
        return found.doc.location((*found.path, name), key=True)

    def side(self, location: str, name: str | None) -> Side:
        """A location's side of that name; of a place without sides (None), one that holds nothing
        (no limit, not full, nobody kept, no ability, condition or trigger)."""
        if name is None:
            bare = self.derived.get(_BARE_SIDES)
            if bare is None:
                bare = self.derived[_BARE_SIDES] = {}
            found: Side | None = bare.get(location)
            if found is None:
                found = bare[location] = Side(location, "", {}, None, False, False, None, None, ())
            return found
        return self.sides[(location, name)]

    def turn_location(self) -> Location | None:
        """Where the pack's turn structure is written (for what goes wrong with the flow as a whole)."""
        section = self.pack.sections.get("turn")
        return None if section is None else section.doc.location(section.path, key=True)


class _Builder:
    def __init__(self, pack: Pack, compiler: Compiler, declared: Declarations):
        self.pack = pack
        self.compiler = compiler
        self.declared = declared
        self.trees: dict[tuple[int, Path_], CompiledEffect] = {
            (id(c.slot.doc), c.slot.path): c for c in pack.effects
        }

    def _tree(self, doc_of: Entity | Any, path: Path_) -> CompiledEffect | None:
        return self.trees.get((id(doc_of.doc), path))

    def block(self, holder: Entity | Any, path: Path_, names: frozenset[str]) -> CompiledBlock | None:
        found = self._tree(holder, path)
        if found is None:
            return None
        assert isinstance(found.tree, ast.Block)
        return self.compiler.block(found.tree, found.slot, names | _extra(found))

    def condition(self, holder: Entity | Any, path: Path_, names: frozenset[str]) -> Fn | None:
        found = self._tree(holder, path)
        if found is None:
            return None
        assert not isinstance(found.tree, ast.Block)
        return self.compiler.condition(found.tree, found.slot, names | _extra(found))

    def names(self, context: str) -> frozenset[str]:
        """The names an effect of the context may read without binding them."""
        spec = context_spec(context, self.declared)
        if spec is None:  # (a field's unknown context is KIND-FIELD: the pack does not load)
            raise EngineError("ENGINE-DECLARATION", f"the pack declares no context `{context}`")
        return frozenset(spec.bindings)

    def playable(
        self, owner: str, holder: Entity | Any, path: Path_, data: dict[str, Any], context: str
    ) -> Playable:
        names = self.names(context)
        return Playable(
            owner,
            str(data.get("window", "anytime")),
            self.condition(holder, (*path, "if"), names),
            self.block(holder, (*path, "cost"), names),
            self.block(holder, (*path, "effect"), names),
        )

    def triggers(
        self, owner: str, holder: Entity | Any, path: Path_, data: Any, context: str
    ) -> tuple[Trigger, ...]:
        found: list[Trigger] = []
        for index, trigger in enumerate(data or []):
            base = (*path, index)
            names = self.names(context) | frozenset(self.declared.events[trigger["event"]].bindings)
            effect = self.block(holder, (*base, "do"), names)
            if effect is None:
                raise EngineError("ENGINE-UNCOMPILED", f"the trigger {owner}#{index} has no compiled effect")
            condition = self.condition(holder, (*base, "if"), names)
            after = trigger.get("timing") == "after_action"
            found.append(Trigger(owner, trigger["event"], condition, effect, after))
        return tuple(found)


def _extra(found: CompiledEffect) -> frozenset[str]:
    return frozenset(found.slot.extra)


def build_rules(pack: Pack, compiler: Compiler) -> Rules:
    """Compile every effect of a valid pack; raises EngineError if the engine lacks a verb."""
    missing = sorted(set(signatures()) - set(compiler.impls) - COMPILED)
    if missing:
        raise EngineError(
            "ENGINE-UNIMPLEMENTED", f"the engine has no implementation for {', '.join(missing)}"
        )
    rules = Rules(pack)
    rules.components = pack.section("components")
    rules.places = tuple(str(p) for p in rules.components.get("places") or {})
    rules.counters = {
        str(kind): Counter(str(kind), str(entry["at"]), entry.get("supply"), entry.get("item"))
        for kind, entry in (rules.components.get("counters") or {}).items()
    }
    rules.items = {c.item: c.kind for c in rules.counters.values() if c.item is not None}
    rules.piles = {
        str(name): Pile(
            str(name),
            str(entry["of"]),
            str(entry.get("per", "game")),
            str(entry["sees"]),
            entry.get("start"),
            bool(entry.get("shuffled", False)),
            entry.get("role"),
            pile_size_of(entry.get("size"), pack.section("params")),
        )
        for name, entry in (rules.components.get("piles") or {}).items()
    }
    rules.roles = {pile.role: name for name, pile in rules.piles.items() if pile.role is not None}
    rules.graphs = graphs_of(rules.components)
    rules.stateful_graphs = tuple(name for name, graph in rules.graphs.items() if graph.stateful)
    rules.hand_pile = rules.roles.get("hand")
    pointers = rules.components.get("pointers") or {}
    rules.pointers = {str(name): Pointer(str(name), str(entry["cycle"])) for name, entry in pointers.items()}
    rules.turn_pointer = next((str(n) for n, e in pointers.items() if e.get("turn_order") is True), None)
    memory = rules.components.get("memory") or {}
    rules.memory = {str(name): _memory(str(name), entry) for name, entry in memory.items()}
    rules.turn_memory = tuple(name for name, m in rules.memory.items() if m.turn)
    rules.memory_roles = {m.role: name for name, m in rules.memory.items() if m.role is not None}
    rules.piece_kinds = {
        str(name): PieceKind(str(name), str(entry["of"]), entry.get("role"))
        for name, entry in (rules.components.get("pieces") or {}).items()
    }
    rules.piece_roles = {k.role: name for name, k in rules.piece_kinds.items() if k.role is not None}
    rules.pieces_of = {k.of: name for name, k in rules.piece_kinds.items()}
    types = pack.ref_types()
    rules.pieces_of_type = {types[k.of]: name for name, k in rules.piece_kinds.items() if k.of in types}
    rules.setup = pack.section("setup")
    rules.params = {name: param["value"] for name, param in pack.section("params").items()}
    rules.declared = declarations_of(pack)
    rules.trait_roles = {t.role: name for name, t in rules.declared.traits.items() if t.role is not None}
    rules.result = result_of(pack)
    builder = _Builder(pack, compiler, rules.declared)
    _pieces(rules, builder)
    _cards(rules, builder)
    _locations(rules, builder)
    rules.entries = entries_with_defaults(pack)
    rules.ids = ids_of_type(pack)
    _turn(rules, builder)
    rules.programs = {**compiler.programs, **engine_programs()}
    rules.flow = Flow(rules)
    rules.programs[rules.flow.program.id] = rules.flow.program
    return rules


def _roles(builder: _Builder, kind: str) -> KindRoles:
    return kind_roles(builder.pack.kind_declarations().get(kind, {}).get("fields"), builder.declared)


def _pieces(rules: Rules, builder: _Builder) -> None:
    """Each piece's own trait values, ability and triggers (by the roles of its kind's fields)."""
    for kind in dict.fromkeys(k.of for k in rules.piece_kinds.values()):
        roles = _roles(builder, kind)
        for entity in builder.pack.entities_of(kind):
            data = entity.data
            own = data.get(roles.traits) if roles.traits is not None else None
            rules.trait_values[entity.id] = own if isinstance(own, dict) else {}
            ability = data.get(roles.ability.field) if roles.ability is not None else None
            if roles.ability is not None and isinstance(ability, dict):
                at = (*entity.path, roles.ability.field)
                rules.powers[entity.id] = builder.playable(
                    entity.id, entity, at, ability, roles.ability.context
                )
            rules.character_triggers[entity.id] = _triggers_of(
                builder, entity.id, entity, entity.path, data, roles.triggers
            )


def _triggers_of(
    builder: _Builder, owner: str, holder: Entity, path: Path_, data: dict[str, Any], role: Role | None
) -> tuple[Trigger, ...]:
    if role is None:
        return ()
    return builder.triggers(owner, holder, (*path, role.field), data.get(role.field), role.context)


def _cards(rules: Rules, builder: _Builder) -> None:
    """The kinds whose entities are themselves playable (from a hand), with their copies."""
    for kind, declared in builder.pack.kind_declarations().items():
        context = _roles(builder, kind).playable
        if context is None:
            continue
        copies = declared.get("copies")
        for entity in builder.pack.entities_of(kind):
            rules.cards[entity.id] = builder.playable(entity.id, entity, entity.path, entity.data, context)
            rules.card_counts[entity.id] = int(entity.data.get(copies, 1)) if isinstance(copies, str) else 1


def _locations(rules: Rules, builder: _Builder) -> None:
    """The places of the kinds whose ids are locations, each with its states (sides)."""
    for kind, declared in builder.pack.kind_declarations().items():
        if declared.get("type") != LOCATION_TYPE:
            continue
        states = _roles(builder, kind).states
        for entity in builder.pack.entities_of(kind):
            if states is None:
                continue
            for index, data in enumerate(entity.data.get(states.field) or []):
                side = _side(builder, entity, (*entity.path, states.field, index), data, states)
                rules.sides[(entity.id, side.name)] = side


def _side(builder: _Builder, entity: Entity, base: Path_, data: dict[str, Any], roles: StateRoles) -> Side:
    name = str(data[roles.name])
    owner = f"{entity.id}/{name}"
    activation = data.get(roles.ability.field) if roles.ability is not None else None
    return Side(
        location=entity.id,
        name=name,
        data=data,
        capacity=roles.capacity_of(data),
        closed=roles.flag(data, roles.full),
        locked=roles.flag(data, roles.locked),
        activation=builder.playable(
            owner, entity, (*base, roles.ability.field), activation, roles.ability.context
        )
        if roles.ability is not None and isinstance(activation, dict)
        else None,
        attack_if=builder.condition(
            entity, (*base, roles.condition.field), builder.names(roles.condition.context)
        )
        if roles.condition is not None
        else None,
        triggers=_triggers_of(builder, owner, entity, base, data, roles.triggers),
    )


def _turn(rules: Rules, builder: _Builder) -> None:
    section = builder.pack.sections["turn"]
    data = section.data
    rules.turns = int(rules.params.get("turns", 1))
    rules.setup_steps = _steps(builder, section, (*section.path, "setup"), data.get("setup"), "setup", "step")
    phases: list[Phase] = []
    for index, phase in enumerate(data.get("phases") or []):
        context = "location_step" if phase.get("per_location") else "step"
        path = (*section.path, "phases", index, "steps")
        steps = _steps(builder, section, path, phase.get("steps"), phase["id"], context)
        phases.append(Phase(phase["id"], bool(phase.get("per_location")), steps))
    rules.phases = tuple(phases)
    rules.end_steps = _steps(builder, section, (*section.path, "end"), data.get("end"), "end", "step")
    rules.rule_triggers = builder.triggers(
        "turn", section, (*section.path, "triggers"), data.get("triggers"), "rule_trigger"
    )


def _steps(
    builder: _Builder, section: Any, path: Path_, steps: Any, group: str, context: str
) -> tuple[Step, ...]:
    found: list[Step] = []
    for index, step in enumerate(steps or []):
        run = builder.block(section, (*path, index, "do"), builder.names(context))
        if run is None:
            raise EngineError("ENGINE-UNCOMPILED", f"the step {group}.{step['id']} has no compiled effect")
        found.append(Step(step["id"], f"step.{group}.{step['id']}.name", run, step.get("required") is True))
    return tuple(found)


def _memory(name: str, entry: dict[str, Any]) -> Memory:
    per_player = entry.get("per_player") is True
    empty: Any = [] if not per_player and str(entry["type"]).startswith("list") else {}
    return Memory(
        name,
        per_player,
        empty,
        entry.get("scope") == "turn",
        str(entry.get("visible", "all")),
        entry.get("hidden_while_asked"),
        entry.get("role"),
        entry.get("set_by"),
        entry.get("read_by"),
    )
