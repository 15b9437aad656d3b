"""Rows for `coh list` and the page for `coh show`, built from a loaded pack."""

from __future__ import annotations

from typing import Any

from coh_core.effects import ast
from coh_core.effects.printer import format_effect, format_expr
from coh_core.packs.model import CompiledEffect, Entity, Pack

LIST_KINDS = ("characters", "actions", "locations", "invasions")
_KIND_OF = {
    "characters": "character",
    "actions": "action",
    "locations": "location",
    "invasions": "invasion",
}

Rows = list[list[str]]


def _text(pack: Pack, key: str) -> str:
    return pack.messages("en").get(key, "")


def _name(pack: Pack, entity: Entity) -> str:
    return _text(pack, f"{entity.kind}.{entity.id}.name") or entity.id


def list_rows(pack: Pack, kind: str) -> tuple[list[str], Rows, list[dict[str, Any]], str]:
    """Table head, rows, JSON records and a footer line for one kind of entity."""
    entities = pack.entities_of(_KIND_OF[kind])
    records = [_record(pack, e) for e in entities]
    builder = {
        "characters": _character_rows,
        "actions": _action_rows,
        "locations": _location_rows,
        "invasions": _invasion_rows,
    }[kind]
    head, rows = builder(records)
    return head, rows, records, _footer(kind, records)


def _footer(kind: str, records: list[dict[str, Any]]) -> str:
    if kind == "actions":
        return f"{len(records)} kinds, {sum(r['count'] for r in records)} cards"
    return f"{len(records)} {kind}"


def _record(pack: Pack, entity: Entity) -> dict[str, Any]:
    """The entity's data plus its English text, ready for JSON."""
    record: dict[str, Any] = {"id": entity.id, "kind": entity.kind, "name": _name(pack, entity)}
    prefix = f"{entity.kind}.{entity.id}."
    texts = {
        k[len(prefix) :]: v
        for k, v in pack.messages("en").items()
        if k.startswith(prefix) and k != prefix + "name"
    }
    record.update({k: v for k, v in entity.data.items() if k != "id"})
    if texts:
        record["text"] = texts
    return record


def _character_rows(records: list[dict[str, Any]]) -> tuple[list[str], Rows]:
    head = ["ID", "NAME", "RESTED", "EXHAUSTED", "WHEN", "DISADVANTAGE"]
    rows = [
        [
            r["id"],
            r["name"],
            str(r["rested"]),
            str(r["exhausted"]),
            r["power"].get("window", "anytime"),
            "yes" if r.get("traits") or r.get("triggers") else "",
        ]
        for r in records
    ]
    return head, rows


def _action_rows(records: list[dict[str, Any]]) -> tuple[list[str], Rows]:
    head = ["ID", "NAME", "COUNT", "WHEN", "SYMBOLS"]
    rows = [
        [
            r["id"],
            r["name"],
            str(r["count"]),
            r.get("window", "anytime"),
            ", ".join(r.get("symbols", [])),
        ]
        for r in records
    ]
    return head, rows


def _side_summary(side: dict[str, Any]) -> str:
    label = str(side["side"])
    if side.get("state_of"):
        label += f" (from {'/'.join(side['state_of'])})"
    return f"{label}: {side['capacity']}"


def _location_rows(records: list[dict[str, Any]]) -> tuple[list[str], Rows]:
    head = ["ID", "NAME", "SLOT", "SIDES AND STATES (capacity)"]
    rows = [[r["id"], r["name"], r["slot"], "; ".join(_side_summary(s) for s in r["sides"])] for r in records]
    return head, rows


def _invasion_rows(records: list[dict[str, Any]]) -> tuple[list[str], Rows]:
    head = ["ID", "HOUR", "ZOMBIES", "MOVES", "AIRDROPS", "LEADER", "PROVENANCE"]
    rows = []
    for r in records:
        moves = ", ".join(f"{m['from']}->{m['to']}" for m in r.get("moves", []))
        drops = ", ".join(_airdrop(d) for d in r.get("airdrops", []))
        rows.append(
            [
                r["id"],
                f"{r['hour']}:00",
                " ".join(map(str, r["zombies"])),
                moves,
                drops,
                str(r.get("leader", "")),
                r["provenance"],
            ]
        )
    return head, rows


def _airdrop(drop: dict[str, Any]) -> str:
    parts = [f"{drop[k]} {k}" for k in ("antidotes", "cards") if drop.get(k)]
    return f"{drop['at']}: {' + '.join(parts)}"


# -- show --------------------------------------------------------------------------------

Lines = list[str]


def show_entity(pack: Pack, entity_id: str) -> tuple[str, dict[str, Any]] | None:
    """The page `coh show` prints, and the matching JSON record, for one entity."""
    entity = pack.entity(entity_id)
    if entity is None:
        return None
    compiled = {c.slot.path: c for c in pack.effects if c.slot.doc is entity.doc}
    record = _record(pack, entity)
    record["effects"] = {
        _label(entity, c): _pretty(c)
        for path, c in compiled.items()
        if path[: len(entity.path)] == entity.path
    }
    page = _Page(pack, entity, compiled)
    lines = [f"{record['name']}  ({entity.kind} `{entity.id}`, {entity.location})"]
    lines.extend(page.body())
    return "\n".join(lines).rstrip(), record


class _Page:
    """Builds the text of one entity: its numbers, its text and its effects, side by side."""

    def __init__(self, pack: Pack, entity: Entity, compiled: dict[Any, CompiledEffect]):
        self.pack, self.entity, self.compiled = pack, entity, compiled
        self.prefix = f"{entity.kind}.{entity.id}."

    def text(self, key: str) -> str:
        return _text(self.pack, self.prefix + key)

    def effect(self, label: str, path: tuple[Any, ...], indent: str) -> Lines:
        found = self.compiled.get((*self.entity.path, *path))
        if found is None:
            return []
        pretty = _pretty(found).splitlines()
        if len(pretty) == 1:
            return [f"{indent}{label}: {pretty[0]}"]
        return [f"{indent}{label}:", *(f"{indent}  {line}" for line in pretty)]

    def triggers(self, path: tuple[Any, ...], triggers: Any, indent: str) -> Lines:
        lines: Lines = []
        for index, trigger in enumerate(triggers or []):
            timing = " (once the current action ends)" if trigger.get("timing") == "after_action" else ""
            lines.append(f"{indent}on {trigger['event']}{timing}:")
            lines.extend(self.effect("if", (*path, index, "if"), indent + "  "))
            lines.extend(self.effect("do", (*path, index, "do"), indent + "  "))
        return lines

    def body(self) -> Lines:
        builder = {
            "character": self.character,
            "action": self.action,
            "location": self.location,
            "invasion": self.invasion,
        }.get(self.entity.kind)
        return builder() if builder else []

    def character(self) -> Lines:
        data = self.entity.data
        power = data["power"]
        lines = [
            "",
            f"  value: {data['rested']} rested / {data['exhausted']} exhausted",
            "",
            f"  Power ({power.get('window', 'anytime')}): {self.text('power')}",
        ]
        for key in ("if", "cost", "effect"):
            lines.extend(self.effect(key, ("power", key), "    "))
        if data.get("traits") or data.get("triggers"):
            lines.extend(["", f"  Disadvantage: {self.text('disadvantage')}"])
            traits = ", ".join(f"{k}={json_like(v).lower()}" for k, v in (data.get("traits") or {}).items())
            if traits:
                lines.append(f"    traits: {traits}")
            lines.extend(self.triggers(("triggers",), data.get("triggers"), "    "))
        return lines

    def action(self) -> Lines:
        data = self.entity.data
        symbols = f", symbols: {', '.join(data['symbols'])}" if data.get("symbols") else ""
        lines = [
            "",
            f"  {data['count']} card(s), played {data.get('window', 'anytime')}{symbols}",
            "",
            f"  {self.text('text')}",
        ]
        for key in ("if", "cost", "effect"):
            lines.extend(self.effect(key, (key,), "    "))
        return lines

    def location(self) -> Lines:
        lines = ["", f"  slot: {self.entity.data['slot']}"]
        for index, side in enumerate(self.entity.data["sides"]):
            lines.extend(self.side(index, side))
        return lines

    def side(self, index: int, side: dict[str, Any]) -> Lines:
        name = side["side"]
        path: tuple[Any, ...] = ("sides", index)
        lines = ["", f"  {self.text(f'{name}.name') or name} [{name}]: {_side_facts(side)}"]
        for key, label in (("effect", "Effect"), ("special", "Special"), ("attack", "Attack")):
            if self.text(f"{name}.{key}"):
                lines.append(f"    {label}: {self.text(f'{name}.{key}')}")
        for key in ("cost", "effect"):
            lines.extend(self.effect(f"activation {key}", (*path, "activation", key), "      "))
        lines.extend(self.effect("attack if", (*path, "attack_if"), "      "))
        lines.extend(self.triggers((*path, "triggers"), side.get("triggers"), "      "))
        return lines

    def invasion(self) -> Lines:
        data = self.entity.data
        lines = [
            "",
            f"  hour: {data['hour']}:00   provenance: {data['provenance']}",
            f"  zombies arriving (locations 1-{len(data['zombies'])}): {json_like(data['zombies'])}",
        ]
        if data.get("moves"):
            lines.append(
                "  zombie moves first: " + ", ".join(f"{m['from']} -> {m['to']}" for m in data["moves"])
            )
        if data.get("airdrops"):
            lines.append("  airdrops: " + ", ".join(_airdrop(d) for d in data["airdrops"]))
        if "leader" in data:
            lines.append(f"  zombie leader moves {data['leader']} space(s) clockwise")
        return lines


def _side_facts(side: dict[str, Any]) -> str:
    flags = [k.replace("_", " ") for k in ("explosion_target", "closed", "locked") if side.get(k)]
    facts = [f"capacity {side['capacity']}", *flags]
    if side.get("state_of"):
        facts.append(f"reached from {'/'.join(side['state_of'])}")
    if side.get("attack_victim") == "leader":
        facts.append("the zombie leader picks the victim")
    return ", ".join(facts)


def json_like(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(json_like(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json_like(v)}" for k, v in value.items()) + "}"
    return str(value)


def _label(entity: Entity, compiled: CompiledEffect) -> str:
    tail = compiled.slot.path[len(entity.path) :]
    if entity.kind == "location" and len(tail) >= 2 and tail[0] == "sides":
        side = entity.data["sides"][tail[1]]["side"]
        tail = (f"side {side}", *tail[2:])
    return " ".join(str(p) for p in tail) or "effect"


def _pretty(compiled: CompiledEffect) -> str:
    tree = compiled.tree
    return format_effect(tree) if isinstance(tree, ast.Block) else format_expr(tree)
