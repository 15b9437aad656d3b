"""The layout shows the engine: which parts of coh_core may import which, read from the source.

The import graph of coh_core is built from the text of its modules (`ast`, nothing imported): an
edge for each import of a coh_core module, at module level (run when the module is imported) or
inside a function (run when the function is called); imports under `if TYPE_CHECKING:` are for the
type checker only and make no edge. An import names the module whose names it uses
(`from coh_core.engine.compile import lowering` names `coh_core.engine.compile.lowering`); the
packages above it, which Python imports first, make no edge of their own.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "coh_core"

# The import cycles among coh_core's modules through module-level imports: none. A new one fails
# `test_import_cycles` until it is broken (a function moved to where it belongs, or a local
# import) or listed here, each cycle as its sorted modules, with why it stays.
KNOWN_CYCLES: list[list[str]] = []

# Cycles closed only by an import inside a function, each a deliberate lazy import.
KNOWN_LAZY_CYCLES: list[list[str]] = [
    # The parser imports lark (lark_parse) only for a text not in its cache of trees, for the
    # start-up time of `coh`; lark_parse reads the parser's EffectSyntaxError, EntryPoint and
    # _position at module level.
    ["coh_core.effects.lark_parse", "coh_core.effects.parser"],
]

# (importer, imported): no module at or under the first imports one at or under the second,
# at module level or inside a function.
FORBIDDEN = [
    ("coh_core.engine", "coh_core.agents"),  # the engine plays no side: agents drive it
    ("coh_core.engine", "coh_core.cli"),
    ("coh_core.engine", "coh_core.narrative"),  # the engine's log is data; narrative words it
    ("coh_core.engine", "coh_core.sim"),
    ("coh_core.effects", "coh_core.engine"),  # the effect language knows nothing of how it runs
    ("coh_core.effects", "coh_core.packs"),
    ("coh_core.packs", "coh_core.engine"),  # a pack is loaded and checked without the engine
    ("coh_core.packs", "coh_core.agents"),
    ("coh_core.agents", "coh_core.cli"),
]

# Modules of which none may import another in a loop (through any imports, lazy ones too): the
# story of a game in words, the listing and showing of a pack's entities, the terminal player.
NO_LOOP = ["coh_core.narrative", "coh_core.packs.listing", "coh_core.agents.terminal"]


def _module_names() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, bool]]:
    """The coh_core modules a module imports, each with whether the import is at module level."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for other in child.orelse:
                    one(other, top)
            else:
                one(child, top)

    def one(node: ast.AST, top: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, top) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package[: len(package) - (node.level - 1)]
                base = ".".join([*above, *([base] if base else [])])
            for alias in node.names:
                inner = f"{base}.{alias.name}"
                found.append((inner if inner in modules else base, top))
        else:
            inside = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(node, top and not inside)

    visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return [(target, top) for target, top in found if target in modules and target != name]


@cache
def _graph(lazy: bool) -> dict[str, frozenset[str]]:
    """Each coh_core module -> those it imports (`lazy`: inside functions too)."""
    modules = _module_names()
    return {
        name: frozenset(target for target, top in _imports(name, path, modules) if top or lazy)
        for name, path in modules.items()
    }


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The modules that import each other in a loop: each strongly connected component of more
    than one module, sorted (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _reaches(graph: dict[str, frozenset[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for target in graph[todo.pop()]:
            if target == goal:
                return True
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return False


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_graph_is_read() -> None:
    """The graph sees the imports it must: module level, in a function, not for the type checker."""
    top, lazy = _graph(False), _graph(True)
    assert "coh_core.engine.compile.lowering" in top["coh_core.engine"]
    assert "coh_core.engine.compile.writer" in top["coh_core.engine.compile.lowering"]
    assert "coh_core.engine.compile.lowering" not in lazy["coh_core.engine.compile.writer"]  # TYPE_CHECKING
    assert "coh_core.effects.lark_parse" in lazy["coh_core.effects.parser"]  # inside a function
    assert "coh_core.effects.lark_parse" not in top["coh_core.effects.parser"]


@pytest.mark.parametrize(
    ("lazy", "known"), [(False, KNOWN_CYCLES), (True, KNOWN_LAZY_CYCLES)], ids=["module", "lazy"]
)
def test_import_cycles(lazy: bool, known: list[list[str]]) -> None:
    """Every import cycle among coh_core's modules is one known (module: through module-level imports
    only; lazy: through imports inside functions too)."""
    assert _cycles(_graph(lazy)) == sorted(known)


@pytest.mark.parametrize(("importer", "imported"), FORBIDDEN, ids=[f"{a}-{b}" for a, b in FORBIDDEN])
def test_forbidden_imports(importer: str, imported: str) -> None:
    graph = _graph(True)
    found = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if _under(name, importer)
        for target in targets
        if _under(target, imported)
    )
    assert found == []


@pytest.mark.parametrize(
    ("first", "second"),
    [(a, b) for i, a in enumerate(NO_LOOP) for b in NO_LOOP[i + 1 :]],
)
def test_no_loop_between(first: str, second: str) -> None:
    graph = _graph(True)
    assert first in graph and second in graph
    assert not (_reaches(graph, first, second) and _reaches(graph, second, first))


# --- the map of the code (docs/architecture.md) --------------------------------------------------

MAP = ROOT.parent / "docs" / "architecture.md"


def _named_paths() -> set[str]:
    """Every path of the repository the map names in backticks (a file or folder that has a dot
    or a slash in it, not a command)."""
    return {
        name
        for name in re.findall(r"`([A-Za-z_][\w./-]*)`", MAP.read_text(encoding="utf-8"))
        if "/" in name and not name.startswith(("coh ", "-")) and "<" not in name
    }


def test_the_map_lists_every_module() -> None:
    modules = {str(path.relative_to(ROOT.parent)) for path in ROOT.rglob("*.py")}
    assert modules - _named_paths() == set()


def test_every_path_the_map_names_exists() -> None:
    missing = {name for name in _named_paths() if not (ROOT.parent / name).exists()}
    assert missing == set()
