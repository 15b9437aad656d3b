"""Where effect texts sit in a pack, which context each is checked in, and compiling them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from coh_core.effects.checker import Checker, Finding, Symbols, names_some_context_binds, shown
from coh_core.effects.parser import EffectSyntaxError, parse_condition, parse_effect
from coh_core.effects.registry import (
    CONTEXTS,
    VERB_CONTEXTS,
    Declarations,
    Kind,
    Param,
    Signature,
    normalize_type,
    parse_param,
    signature,
)
from coh_core.errors import Location, Problem
from coh_core.packs.declarations import declarations_of, messages_of
from coh_core.packs.fields import EFFECT_TYPES, RECORD, FieldType, field_type
from coh_core.packs.model import CompiledEffect, EffectSlot, Entity, Pack
from coh_core.packs.pack_data import field_types, section_types
from coh_core.packs.reuse import EffectChecks, SymbolsChecks
from coh_core.packs.roles import place_sides
from coh_core.packs.yamlsrc import Path_, YamlDoc


def symbols_of(pack: Pack) -> Symbols:
    ref_types = pack.ref_types()
    refs = {
        entity_id: ref_types[kind]
        for kind, by_id in pack.entities.items()
        for entity_id in by_id
        if kind in ref_types
    }
    sides = {side.name for side in place_sides(pack)}
    params = {
        str(name): str(param["type"])
        for name, param in pack.section("params").items()
        if isinstance(param, dict) and isinstance(param.get("type"), str)
    }
    declared = declarations_of(pack)
    messages = messages_of(pack, declared)
    verbs = pack_verbs(pack, declared)
    return Symbols(
        refs,
        frozenset(sides),
        params,
        verbs,
        messages.log,
        declared,
        carried=messages.carried,
        questions=messages.questions(),
        answers=frozenset(messages.answers),
        sections=section_types(pack, refs),
        fields=field_types(pack, refs),
        complete=pack.complete,
        messages_declared="messages" in pack.sections,
    )


def pack_verbs(pack: Pack, declared: Declarations) -> dict[str, Signature]:
    """The signatures of the verbs the pack defines (those whose parameters are well formed)."""
    found: dict[str, Signature] = {}
    for entity in pack.entities_of("verb"):
        params = verb_params(entity, declared)
        if params is not None and signature(entity.id) is None:
            returns = entity.data.get("returns")
            kind = Kind.VERB if returns is None else Kind.SELECTOR
            known = declared.is_known_type(str(returns))
            typed = None if returns is None else (normalize_type(str(returns)) if known else "any")
            doc = str(entity.data.get("doc", ""))
            made = Signature(entity.id, kind, params, typed, doc, asks=_asks(entity))
            # one object for the same signature in every pack of a run: compared by identity
            # when overlays are checked (coh_core.packs.reuse); every field here has one type
            found[entity.id] = _SIGNATURES.setdefault(made, made)
    if len(_SIGNATURES) > 10_000:
        _SIGNATURES.clear()
    return found


_SIGNATURES: dict[Signature, Signature] = {}


def _asks(entity: Entity) -> bool:
    """A selector of the pack that may ask questions and change the game (`asks: true`)."""
    return entity.data.get("returns") is not None and entity.data.get("asks") is True


def verb_context(entity: Entity) -> str:
    """The context a pack verb's body is checked in: a verb, a selector, or a selector that asks."""
    if entity.data.get("returns") is None:
        return "verb"
    return "asking_selector" if _asks(entity) else "selector"


def verb_params(entity: Entity, declared: Declarations) -> tuple[Param, ...] | None:
    """A pack verb's parameters in order, or None if one is malformed (reported by the checks).

    A parameter of an unknown type (reported once, at its declaration) is taken as `any`, so
    that neither the body nor the calls report it again.
    """
    found = [parse_param(str(name), str(spec)) for name, spec in (entity.data.get("params") or {}).items()]
    if any(p is None for p in found):
        return None
    return tuple(
        p if declared.is_known_type(p.type) else replace(p, type="any") for p in found if p is not None
    )


def effect_slots(pack: Pack, declared: Declarations | None = None) -> Iterator[EffectSlot]:
    """Every effect and condition text of the pack, with the context and names it is checked with:
    those of the entities (found by their kinds' declared fields), the turn's and the verbs'."""
    declared = declared or declarations_of(pack)
    plans: dict[int, _Plan] = {}  # (the fields of a kind are read once, not once per entity)
    for kind, entry in pack.kind_declarations().items():
        plan = _plan(entry.get("fields"), plans, declared)
        for entity in pack.entities_of(kind):
            yield from _record_slots(entity.id, entity.doc, entity.path, entity.data, plan, declared)
    turn = pack.sections.get("turn")
    if turn is not None:
        yield from _turn_slots(turn.doc, turn.path, turn.data, declared)
    for entity in pack.entities_of("verb"):
        params = verb_params(entity, declared) or ()
        names = ({p.name: p.type for p in params}, False)
        body = entity.data.get("do")
        context = verb_context(entity)
        yield from _slot(entity.id, entity.doc, (*entity.path, "do"), body, "effect", context, names)


def _entity_context(name: str, declared: Declarations) -> bool:
    """Whether an entity's effects may be checked in that context (not in a verb's own)."""
    return name in declared.contexts or (name in CONTEXTS and name not in VERB_CONTEXTS)


@dataclass(frozen=True)
class _Step:
    """One declared field that holds effects, or records that may: what to do with its value."""

    name: str
    parsed: FieldType
    context: str | None = None  # for effects and triggers
    inner: _Plan | None = None  # for records
    named_by: str | None = None  # for a list of records: the field naming each item


@dataclass(frozen=True)
class _Plan:
    """Where the effects of a record with these declared fields are, in the fields' order; and its
    window field with that field's default, if it has one."""

    steps: tuple[_Step, ...]
    window: tuple[str, Any] | None


def _plan(fields: Any, plans: dict[int, _Plan], declared: Declarations) -> _Plan:
    found = plans.get(id(fields))
    if found is not None:
        return found
    steps: list[_Step] = []
    window: tuple[str, Any] | None = None
    for name, spec in fields.items() if isinstance(fields, dict) else ():
        parsed = field_type(spec)
        if parsed is None:
            continue
        context = spec.get("context")
        known = (
            context if isinstance(context, str) and _entity_context(context, declared) else None
        )  # else KIND-FIELD
        if parsed.base == "window" and parsed.lists == 0 and window is None:
            window = (str(name), spec.get("default"))
        elif known is not None and (
            parsed.base in EFFECT_TYPES or (parsed.base == "triggers" and not parsed.lists)
        ):
            steps.append(_Step(str(name), parsed, context=known))
        elif parsed.base == RECORD and parsed.lists <= 1:
            inner = spec.get("fields")
            named_by = _item_name_field(inner) if parsed.lists else None
            steps.append(_Step(str(name), parsed, inner=_plan(inner, plans, declared), named_by=named_by))
    plans[id(fields)] = made = _Plan(tuple(steps), window)
    return made


def _record_slots(
    owner: str, doc: YamlDoc, path: Path_, data: dict[str, Any], plan: _Plan, declared: Declarations
) -> Iterator[EffectSlot]:
    """The effects of an entity or a record, by its declared fields: an `effect` or `condition`
    field in its `context`, with the names of the record's window (its field typed `window`, or
    that field's default) if it has one; `triggers` in theirs; records and lists of records
    inside, each item of a list named by its first `id` or `name` field (`<id>/<name>`)."""
    names: tuple[dict[str, str], bool] = ({}, False)
    if plan.window is not None:
        names = _window_names(data.get(plan.window[0], plan.window[1]), declared)
    for step in plan.steps:
        value = data.get(step.name)
        if value is None:
            continue
        at = (*path, step.name)
        if step.inner is None and step.context is not None and step.parsed.base == "triggers":
            yield from _triggers(owner, doc, at, value, step.context, declared)
        elif step.inner is None and step.context is not None:
            for item_at, text in _items(at, value, step.parsed.lists):
                yield from _slot(owner, doc, item_at, text, step.parsed.base, step.context, names)
        elif step.inner is not None and not step.parsed.lists and isinstance(value, dict):
            yield from _record_slots(owner, doc, at, value, step.inner, declared)
        elif step.inner is not None and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    item_owner = f"{owner}/{item.get(step.named_by)}" if step.named_by else owner
                    yield from _record_slots(item_owner, doc, (*at, index), item, step.inner, declared)


def _items(path: Path_, value: Any, lists: int) -> Iterator[tuple[Path_, Any]]:
    """The values inside `lists` nested lists, each with its path."""
    if lists == 0:
        yield path, value
        return
    for index, item in enumerate(value if isinstance(value, list) else []):
        yield from _items((*path, index), item, lists - 1)


def _item_name_field(fields: Any) -> str | None:
    """The field that names an item of a list of records: its first typed `id` or `name`."""
    for name, spec in (fields or {}).items() if isinstance(fields, dict) else ():
        parsed = field_type(spec)
        if parsed is not None and parsed.lists == 0 and parsed.base in ("id", "name"):
            return str(name)
    return None


def _slot(
    owner: str,
    doc: YamlDoc,
    path: Path_,
    value: Any,
    entry: str,
    context: str,
    names: tuple[dict[str, str], bool] = ({}, False),
) -> Iterator[EffectSlot]:
    """A slot for `value` if it is a string; `names` are the extra bindings and leniency."""
    if isinstance(value, str):
        extra, lenient = names
        yield EffectSlot(owner, doc, path, value, entry, context, extra, lenient)


def _window_names(window: Any, declared: Declarations) -> tuple[dict[str, str], bool]:
    """A window's extra names; lenient when the window itself is unknown (reported: REF-UNDEF)."""
    spec = declared.windows.get(window) if isinstance(window, str) else None
    return (dict(spec.bindings), False) if spec else ({}, True)


def _event_names(event: Any, declared: Declarations) -> tuple[dict[str, str], bool]:
    spec = declared.events.get(event) if isinstance(event, str) else None
    return (dict(spec.bindings), False) if spec else ({}, True)


def _triggers(
    owner: str, doc: YamlDoc, path: Path_, triggers: Any, context: str, declared: Declarations
) -> Iterator[EffectSlot]:
    if not isinstance(triggers, list):
        return
    for index, trigger in enumerate(triggers):
        if not isinstance(trigger, dict):
            continue
        names = _event_names(trigger.get("event"), declared)
        base = (*path, index)
        yield from _slot(owner, doc, (*base, "if"), trigger.get("if"), "condition", context, names)
        yield from _slot(owner, doc, (*base, "do"), trigger.get("do"), "effect", context, names)


def _steps(doc: YamlDoc, path: Path_, steps: Any, context: str) -> Iterator[EffectSlot]:
    if not isinstance(steps, list):
        return
    for index, step in enumerate(steps):
        if isinstance(step, dict):
            owner = f"turn/{step.get('id')}"
            yield from _slot(owner, doc, (*path, index, "do"), step.get("do"), "effect", context)


def _turn_slots(
    doc: YamlDoc, path: Path_, turn: dict[str, Any], declared: Declarations
) -> Iterator[EffectSlot]:
    yield from _steps(doc, (*path, "setup"), turn.get("setup"), "step")
    phases = turn.get("phases")
    if isinstance(phases, list):
        for index, phase in enumerate(phases):
            if isinstance(phase, dict):
                context = "location_step" if phase.get("per_location") else "step"
                yield from _steps(doc, (*path, "phases", index, "steps"), phase.get("steps"), context)
    yield from _steps(doc, (*path, "end"), turn.get("end"), "step")
    yield from _triggers("turn", doc, (*path, "triggers"), turn.get("triggers"), "rule_trigger", declared)


def compile_effects(pack: Pack, reuse: EffectChecks | None = None) -> list[Problem]:
    """Parse and check every effect of the pack once; keeps the ASTs on the pack. `reuse`: the
    checks of a validation run, whose results an unchanged effect reuses."""
    symbols = symbols_of(pack)
    checks = (reuse or EffectChecks(enabled=False)).symbols(symbols)
    problems: list[Problem] = []
    pack.effects = []
    for slot in effect_slots(pack, symbols.declared):
        compiled, found = compile_slot(slot, symbols, checks)
        problems.extend(found)
        if compiled is not None:
            pack.effects.append(compiled)
    problems.extend(default_problems(pack, symbols))
    return problems


def default_problems(pack: Pack, symbols: Symbols) -> Iterator[Problem]:
    """Each default of a pack verb's parameter is an expression of the parameter's type that asks
    nothing (the engine works it out wherever a call leaves the parameter out): VERB-PARAM at the
    parameter. The names it reads are typed as the contexts, events and windows bind them; whether
    each is bound where a call leaves it out is checked at the call (EFF-UNBOUND-NAME)."""
    names = names_some_context_binds(symbols.declared)
    for verb in pack.entities_of("verb"):
        for name, spec in (verb.data.get("params") or {}).items():
            param = parse_param(str(name), str(spec))
            if param is None or param.default is None or not symbols.declared.is_known_type(param.type):
                continue  # (a malformed parameter or an unknown type is reported as such)
            where = verb.doc.location((*verb.path, "params", name))
            try:
                tree = parse_condition(param.default)
            except EffectSyntaxError as exc:
                yield Problem(
                    "VERB-PARAM",
                    f"the default of `{name}`, `{shown(param.default)}`, is no expression: {exc.message}",
                    where,
                )
                continue
            for finding in Checker(symbols, "verb", names).check_default(tree, verb.id, param):
                code = finding.code if finding.code in ("VERB-RECURSION", "EFF-LIMIT") else "VERB-PARAM"
                yield Problem(code, f"{finding.message} (`{name}: {shown(str(spec))}`)", where)


def compile_slot(
    slot: EffectSlot, symbols: Symbols, checks: SymbolsChecks | None = None
) -> tuple[CompiledEffect | None, list[Problem]]:
    try:
        tree: Any = parse_effect(slot.source) if slot.entry == "effect" else parse_condition(slot.source)
    except EffectSyntaxError as exc:
        return None, [_located(slot, exc.code, exc.message, exc.offset)]
    verb = symbols.verbs.get(slot.owner) if slot.context in VERB_CONTEXTS else None
    returns = verb.returns if verb is not None else None

    def check(seen: Symbols) -> list[Finding]:
        checker = Checker(seen, slot.context, slot.extra, lenient=slot.lenient, returns=returns)
        return checker.check_effect(tree) if slot.entry == "effect" else checker.check_condition(tree)

    # the text's tree is a function of its text: the text stands for it in the key
    key = (slot.source, slot.entry, slot.context, tuple(slot.extra.items()), slot.lenient, returns)
    findings = checks.findings(key, check) if checks is not None else check(symbols)
    problems = [_located(slot, f.code, f.message, f.span.start) for f in findings]
    return CompiledEffect(slot, tree), problems


def _located(slot: EffectSlot, code: str, message: str, offset: int) -> Problem:
    """A problem at the effect's own position inside its YAML scalar, with a caret line."""
    location: Location = slot.doc.offset_in_scalar(slot.path, offset)
    written_in, _ = slot.doc.origin(slot.path)  # an overlay's patch: its own file, not the patched one
    line_text = written_in.source_line(location.line)
    caret = f"    {line_text}\n    {' ' * max(location.col - 1, 0)}^"
    return Problem(code, message, location, caret)
