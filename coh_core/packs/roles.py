"""What the engine plays of a kind's entities, found by the roles of the contexts of its fields.

A pack declares its kinds' fields (`kinds:`) and the contexts their effects are written in
(`contexts:`, each playing one of the engine's roles: `coh_core.effects.registry.ROLES`). The
engine reads no field by a name the pack chose: it looks for

- a **playable**: a record (or the entity itself) with an `effect` field in a context of role
  `piece_ability`, `card` or `place_ability`, and optionally `window`, `if` and `cost` (the
  engine's names for when, whether and at what price it is used);
- **triggers**: a field of type `triggers`;
- **trait values**: a field of type `trait_values` (a piece's own values of the pack's traits);
- **states** (a place's sides): a list of records holding a playable, a condition of role
  `place_condition`, triggers or a `capacity`, each named by its first `id`/`name` field, with the engine's
  `capacity`, `closed` and `locked` (how many pieces fit, counts as full, nobody leaves).

A field the pack adds to its `setup` may play a role as well (`SETUP_FIELD_ROLES`): the place a
piece goes to instead of a full one (`setup_role`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from coh_core.effects.registry import (
    LOCATION_TYPE,
    PLACE_STATE_ROLES,
    ROLES,
    SETUP_FIELD_ROLES,
    Declarations,
    context_spec,
)
from coh_core.packs.declarations import declarations_of
from coh_core.packs.fields import RECORD, field_type
from coh_core.packs.model import SECTION_FIELDS, Entity, Pack
from coh_core.packs.yamlsrc import Path_

PLAYABLE_ROLES = frozenset({"piece_ability", "card", "place_ability"})
PLAYABLE_EFFECT = "effect"  # the field of a playable record that holds what it does
FIELD_ROLE = "role"  # the key of a field's declaration that gives it a role (of a place's states, of `setup`)
STATE_NAME = "state_name"  # the role of the field that names a state


@dataclass(frozen=True)
class Role:
    """A field the engine plays, and the context its effects are written in."""

    field: str
    context: str


@dataclass(frozen=True)
class StateRoles:
    """What the engine plays of each state of a place (one item of its list of states)."""

    field: str  # the list of states
    name: str  # the field that names a state (role `state_name`)
    ability: Role | None = None  # a playable record
    condition: Role | None = None  # a condition of role `place_condition`
    triggers: Role | None = None
    capacity: str | None = None  # how many pieces fit (role `capacity`)
    full: str | None = None  # counts as full (role `full`)
    locked: str | None = None  # nobody leaves (role `locked`)
    reached_from: str | None = None  # the states it is reached from (role `reached_from`)

    def capacity_of(self, data: Mapping[str, Any]) -> int | None:
        """How many pieces fit in a state as the pack writes it (None: no limit)."""
        value = data.get(self.capacity) if self.capacity is not None else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def flag(self, data: Mapping[str, Any], field: str | None) -> bool:
        """A yes/no field of a role of a state as the pack writes it (false without the role)."""
        return field is not None and data.get(field) is True

    def sources(self, data: Mapping[str, Any]) -> list[str]:
        """The states a state is reached from ([]: a state a place may start on)."""
        found = data.get(self.reached_from) if self.reached_from is not None else None
        return [str(name) for name in found] if isinstance(found, list) else []


@dataclass(frozen=True)
class KindRoles:
    """What the engine plays of the entities of one kind."""

    playable: str | None = None  # the context, when the entity itself is a playable (a card)
    ability: Role | None = None  # a record field that is a playable (a piece's ability)
    triggers: Role | None = None
    traits: str | None = None  # the field of its own trait values
    states: StateRoles | None = None


UNKNOWN_ROLE = "?"  # of a context nobody declares (KIND-FIELD): taken as meaning whichever fits


def role_of(context: Any, declared: Declarations) -> str:
    """The engine's role of a context: "" for none (an engine context of its own, no context),
    `UNKNOWN_ROLE` for a name nobody declares (reported once, so that what the field was meant for
    is not reported again as missing)."""
    if not isinstance(context, str):
        return ""
    spec = context_spec(context, declared)
    if spec is None:
        return UNKNOWN_ROLE
    return spec.role or (spec.name if spec.name in ROLES else "")


def kind_roles(fields: Any, declared: Declarations) -> KindRoles:
    """The roles of a kind's declared fields (fields without a known role are the pack's own)."""
    record = _record_roles(fields, declared)
    states: StateRoles | None = None
    for name, spec in _fields(fields):
        parsed = field_type(spec)
        if parsed is not None and parsed.base == RECORD and parsed.lists == 1:
            played = state_field_roles(spec.get("fields"))
            if played:
                states = _state_roles(
                    name, spec.get("fields"), played, _record_roles(spec.get("fields"), declared)
                )
                break
    return KindRoles(record.playable, record.ability, record.triggers, record.traits, states)


def state_field_roles(fields: Any) -> dict[str, str]:
    """The roles of a place's states the fields of a record play: role -> the first field of it."""
    found: dict[str, str] = {}
    for name, spec in _fields(fields):
        role = spec.get(FIELD_ROLE)
        if isinstance(role, str) and role in PLACE_STATE_ROLES:
            found.setdefault(role, name)
    return found


@dataclass(frozen=True)
class _RecordRoles:
    playable: str | None = None
    triggers: Role | None = None
    traits: str | None = None
    condition: Role | None = None
    ability: Role | None = None


def _record_roles(fields: Any, declared: Declarations) -> _RecordRoles:
    """The roles of the fields of one record: the record itself a playable, its triggers, its
    trait values, its condition of a place, and a playable record inside it."""
    playable: str | None = None
    triggers: Role | None = None
    traits: str | None = None
    condition: Role | None = None
    ability: Role | None = None
    for name, spec in _fields(fields):
        parsed = field_type(spec)
        if parsed is None or parsed.lists:
            continue
        role = role_of(spec.get("context"), declared)
        if name == PLAYABLE_EFFECT and parsed.base == "effect" and role in (*PLAYABLE_ROLES, UNKNOWN_ROLE):
            playable = str(spec["context"])
        elif parsed.base == "triggers" and role and triggers is None:
            triggers = Role(name, str(spec["context"]))
        elif parsed.base == "trait_values" and traits is None:
            traits = name
        elif parsed.base == "condition" and role in ("place_condition", UNKNOWN_ROLE) and condition is None:
            condition = Role(name, str(spec["context"]))
        elif parsed.base == RECORD and ability is None:
            inner = _record_roles(spec.get("fields"), declared).playable
            if inner is not None:
                ability = Role(name, inner)
    return _RecordRoles(playable, triggers, traits, condition, ability)


def _state_roles(field: str, fields: Any, played: Mapping[str, str], roles: _RecordRoles) -> StateRoles:
    # (without a field of role `state_name`, KIND-FIELD: the first name names them, so that one
    # mistake is reported once)
    named_by = played.get(STATE_NAME) or next((n for n, spec in _fields(fields) if _is_name(spec)), "")
    return StateRoles(
        field,
        named_by,
        roles.ability,
        roles.condition,
        roles.triggers,
        played.get("capacity"),
        played.get("full"),
        played.get("locked"),
        played.get("reached_from"),
    )


def _is_name(spec: Mapping[str, Any]) -> bool:
    parsed = field_type(spec)
    return parsed is not None and parsed.lists == 0 and parsed.base in ("id", "name")


def _fields(fields: Any) -> list[tuple[str, Mapping[str, Any]]]:
    return [(str(k), v) for k, v in fields.items() if isinstance(v, dict)] if isinstance(fields, dict) else []


# -- the places of a pack ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceSide:
    """One side (state) of a place, as a pack writes it."""

    place: Entity
    index: int  # its position in the place's list of states
    name: str
    data: dict[str, Any]
    roles: StateRoles

    @property
    def path(self) -> Path_:
        return (*self.place.path, self.roles.field, self.index)

    @property
    def capacity(self) -> int | None:
        """How many pieces fit (None: no limit)."""
        return self.roles.capacity_of(self.data)

    @property
    def full(self) -> bool:
        """Whether it counts as full, whatever its capacity (role `full`)."""
        return self.roles.flag(self.data, self.roles.full)

    @property
    def reached_from(self) -> list[str]:
        """The states it is reached from ([]: a state the place may start on)."""
        return self.roles.sources(self.data)


def place_kinds(pack: Pack) -> list[str]:
    """The kinds whose entities are the board's places (their ids are of the type `location`)."""
    return [kind for kind, entry in pack.kind_declarations().items() if entry.get("type") == LOCATION_TYPE]


def places_of(pack: Pack) -> list[Entity]:
    return [entity for kind in place_kinds(pack) for entity in pack.entities_of(kind)]


def place_sides(pack: Pack, declared: Declarations | None = None) -> Iterator[PlaceSide]:
    """Every side of every place, in the pack's order (a side without its name is left out)."""
    declared = declared if declared is not None else declarations_of(pack)
    for kind in place_kinds(pack):
        states = kind_roles(pack.kind_declarations()[kind].get("fields"), declared).states
        if states is None:
            continue
        for place in pack.entities_of(kind):
            yield from sides_of(place, states)


def sides_of(place: Entity, states: StateRoles) -> Iterator[PlaceSide]:
    listed = place.data.get(states.field)
    for index, data in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(data, dict) and states.name in data:
            yield PlaceSide(place, index, str(data[states.name]), data, states)


def sides_by_name(pack: Pack, place: Entity) -> dict[str, PlaceSide]:
    """A place's sides by name, as the pack writes them ({}: no place, or a place without sides)."""
    if place.kind not in place_kinds(pack):
        return {}
    states = kind_roles(pack.kind_declarations()[place.kind].get("fields"), declarations_of(pack)).states
    return {} if states is None else {side.name: side for side in sides_of(place, states)}


def place_side(pack: Pack, place: str, name: str) -> PlaceSide | None:
    """The side of that name of a place, as the pack writes it (None: no such place or side)."""
    entity = pack.entity(place)
    return sides_by_name(pack, entity).get(name) if entity is not None else None


def setup_role(pack: Pack, role: str) -> Any:
    """The value of the pack's `setup` field that plays this role (`SETUP_FIELD_ROLES`; None:
    no field plays it)."""
    declared = pack.section(SECTION_FIELDS).get("setup")
    for name, spec in _fields(declared):
        if spec.get(FIELD_ROLE) == role:
            return pack.section("setup").get(name)
    return None


# -- the roles of a place's states, as declared ---------------------------------------------------


@dataclass(frozen=True)
class RoleProblem:
    """Something wrong with the `role:` of a field: the path below the kind's `fields`, what."""

    path: tuple[str, ...]
    message: str


def state_role_problems(kind_type: Any, fields: Any) -> Iterator[RoleProblem]:
    """The roles of a place's states are given to fields of the right type, in the records of a
    list of a kind whose ids are locations, once each, with a field that names the state."""
    lists = [
        (name, spec)
        for name, spec in _fields(fields)
        if (parsed := field_type(spec)) is not None and parsed.base == RECORD and parsed.lists == 1
    ]
    listed = {name for name, _ in lists}
    for name, spec in _fields(fields):
        if FIELD_ROLE in spec:
            yield _misplaced_role(name, spec)
        if name not in listed:
            yield from _nested_roles((name,), spec)
    holder: str | None = None
    for name, spec in lists:
        inner = spec.get("fields")
        for field, inner_spec in _fields(inner):
            yield from _nested_roles((name, "fields", field), inner_spec)
        played = _roles_played(name, inner)
        yield from played.problems
        if not played.roles:
            continue
        if kind_type != LOCATION_TYPE:
            first = next(iter(played.roles.values()))
            yield _misplaced_role(first, _fields_of(inner)[first], (name, "fields"))
        elif STATE_NAME not in played.roles:
            said = (
                f"the records of `{name}` play roles of a place's states but none names the state:"
                f" give a field of type `name` the role `{STATE_NAME}`"
            )
            yield RoleProblem((name,), said)
        elif holder is not None:
            yield RoleProblem((name,), f"the kind's states are already the records of `{holder}`")
        else:
            holder = name


@dataclass(frozen=True)
class _Played:
    roles: dict[str, str]  # role -> the field that plays it
    problems: list[RoleProblem]


def _roles_played(list_name: str, fields: Any) -> _Played:
    roles: dict[str, str] = {}
    problems: list[RoleProblem] = []
    for name, spec in _fields(fields):
        role = spec.get(FIELD_ROLE)
        where = (list_name, "fields", name, FIELD_ROLE)
        if role in SETUP_FIELD_ROLES:
            problems.append(RoleProblem(where, _misplaced_role(name, spec).message))
            continue
        if not isinstance(role, str) or role not in PLACE_STATE_ROLES:
            continue  # (an unknown role: the schema's)
        allowed = PLACE_STATE_ROLES[role][0]
        parsed = field_type(spec)
        if parsed is not None and parsed.written not in allowed:
            said = f"field `{name}` plays the role `{role}`, of type {' or '.join(f'`{t}`' for t in allowed)}"
            problems.append(RoleProblem(where, f"{said}, not `{parsed.written}`"))
        elif role in roles:
            said = f"fields `{roles[role]}` and `{name}` both play the role `{role}`"
            problems.append(RoleProblem(where, said))
        else:
            roles[role] = name
    return _Played(roles, problems)


def _nested_roles(path: tuple[str, ...], spec: Mapping[str, Any]) -> Iterator[RoleProblem]:
    """Roles given to fields of records deeper than a place's states: the engine reads none."""
    for name, inner in _fields(spec.get("fields")):
        if FIELD_ROLE in inner:
            yield _misplaced_role(name, inner, (*path, "fields"))
        yield from _nested_roles((*path, "fields", name), inner)


def _misplaced_role(name: str, spec: Mapping[str, Any], path: tuple[str, ...] = ()) -> RoleProblem:
    role = spec.get(FIELD_ROLE)
    said = f"the engine reads the role `{role}` only on " + (
        "a field of `setup` (`section_fields: setup`)"
        if role in SETUP_FIELD_ROLES
        else "a field of a place's states: of the records of a list (`list[record]`) of a kind whose"
        " ids are locations"
    )
    return RoleProblem((*path, name, FIELD_ROLE), said)


def setup_role_problems(section: str, fields: Any) -> Iterator[RoleProblem]:
    """The roles of the fields a pack adds to a shared section (`section_fields`): only those of
    `setup` play one, each of `SETUP_FIELD_ROLES`, of its type, and once."""
    played: dict[str, str] = {}
    for name, spec in _fields(fields):
        yield from _nested_roles((name,), spec)
        role = spec.get(FIELD_ROLE)
        if role is None:
            continue
        where = (name, FIELD_ROLE)
        if section != "setup" or role not in SETUP_FIELD_ROLES:
            known = ", ".join(f"`{r}`" for r in SETUP_FIELD_ROLES)
            said = (
                f"the engine reads no role of a field of `{section}`"
                if section != "setup"
                else f"`{role}` is no role of a field of `setup` (those of `setup`: {known})"
            )
            yield RoleProblem(where, said)
            continue
        allowed = SETUP_FIELD_ROLES[role][0]
        parsed = field_type(spec)
        if parsed is not None and parsed.written not in allowed:
            said = f"field `{name}` plays the role `{role}`, of type {' or '.join(f'`{t}`' for t in allowed)}"
            yield RoleProblem(where, f"{said}, not `{parsed.written}`")
        elif role in played:
            yield RoleProblem(where, f"fields `{played[role]}` and `{name}` both play the role `{role}`")
        else:
            played[str(role)] = name


def _fields_of(fields: Any) -> dict[str, Mapping[str, Any]]:
    return dict(_fields(fields))
