"""The package's import graph: no cycles, and no import from a lower layer to a higher one.

Every ``import`` counts, including the ones inside functions (a cycle hidden there is
still a cycle); imports under ``if TYPE_CHECKING:`` are erased at run time and do not.
Importing ``a.b.c`` also runs package ``a.b``'s ``__init__``, so that counts as an import
of ``a.b`` too. The layers are the ones ``docs/ARCHITECTURE.md`` lists.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "askai_graph"

# Lowest first: a module may import modules of its own layer and of the layers before it.
LAYERS: list[tuple[str, frozenset[str]]] = [
    ("foundation", frozenset({"lazy", "text", "plaintext", "deadline", "fencing", "injection", "unlinking"})),
    ("evidence", frozenset({"evidence", "citations", "validation"})),
    ("model", frozenset(
        {"settings", "endpoint", "critique", "state", "summary", "catalog", "question", "answer_form", "identifiers"}
    )),
    ("rules", frozenset({"gates", "edges"})),
    ("retrieval", frozenset({"retrieval"})),
    ("roles", frozenset({"prompts", "condensing", "writing", "reviewing", "adapter", "offline"})),
    ("indexing", frozenset({"indexing"})),
    ("stores", frozenset({"stores"})),
    ("assembly", frozenset({"providers", "local_model"})),
    ("graph", frozenset({"nodes", "graph", "public_output"})),
    ("faces", frozenset({"evaluation", "server", "mcp", "plugins", "sphinx"})),
    ("reports", frozenset({"reporting"})),
    ("entry", frozenset({"", "cli", "kept_threads", "__main__"})),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["askai_graph", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _resolve(name: str) -> str | None:
    """Return the module of ``askai_graph`` that ``name`` (a module or a name in one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str) -> Iterator[str]:
    """Yield every module of the package that ``module`` imports at run time."""
    base = module if _is_package(module) else module.rpartition(".")[0]

    def walk(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from (name for branch in child.orelse for name in walk(branch))
                continue
            if isinstance(child, ast.Import):
                yield from (alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    anchor = base.split(".")[: len(base.split(".")) - child.level + 1]
                    source = ".".join(anchor + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                for alias in child.names:
                    # ``from a import b``: module ``a.b`` if there is one, else a name in ``a``.
                    yield f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
            yield from walk(child)

    for name in walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        target = _resolve(name) if name.startswith("askai_graph") else None
        if target is None:
            continue
        # Importing ``a.b.c`` first runs every enclosing package's ``__init__``.
        parts = target.split(".")
        for depth in range(2, len(parts)):
            parent = ".".join(parts[:depth])
            if not (module == parent or module.startswith(parent + ".")):
                yield parent
        yield target


GRAPH = {module: {target for target in _imported(module) if target != module} for module in MODULES}


def _layer(module: str) -> int:
    top = module.removeprefix("askai_graph").removeprefix(".").split(".")[0]
    for rank, (_, members) in enumerate(LAYERS):
        if top in members:
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md")


def _cycles() -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(GRAPH[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles() == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_is_in_a_layer(module: str) -> None:
    _layer(module)


def test_no_module_imports_a_higher_layer() -> None:
    upward = sorted(
        f"{module} ({LAYERS[_layer(module)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for module, targets in GRAPH.items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert upward == []


def test_the_checker_sees_imports_inside_functions_and_enclosing_packages() -> None:
    # A checker that found nothing would pass every test above.
    assert "askai_graph.graph" in GRAPH["askai_graph.cli"]  # imported inside a function
    assert "askai_graph.indexing" in GRAPH["askai_graph.providers"]  # via askai_graph.indexing.loader
