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
    ("foundation", frozenset({"lazy", "text", "clients"})),
    ("evidence", frozenset({"evidence", "validation"})),
    ("state", frozenset({"settings", "state", "summary"})),
    ("retrieval", frozenset({"retrieval"})),
    ("rules", frozenset({"rules", "edges"})),
    ("indexing", frozenset({"indexing"})),
    ("models", frozenset({"models"})),
    ("stores", frozenset({"stores"})),
    ("graph", frozenset({"nodes", "graph", "wiring", "public_output"})),
    ("faces", frozenset({"evaluation", "server", "mcp", "plugins", "sphinx"})),
    ("reports", frozenset({"reporting"})),
    ("entry", frozenset({"", "cli", "__main__"})),
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


def _imported(module: str, *, typing_too: bool = False) -> Iterator[str]:
    """Yield every module of the package that ``module`` imports at run time (``typing_too``: for type checks too)."""
    base = module if _is_package(module) else module.rpartition(".")[0]

    def walk(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test) and not typing_too:
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
        # Importing ``a.b.c`` first runs every enclosing package's ``__init__`` (at run time;
        # the design graph counts the modules an import names, not what running it runs).
        parts = target.split(".")
        for depth in range(2, len(parts) if not typing_too else 2):
            parent = ".".join(parts[:depth])
            if not (module == parent or module.startswith(parent + ".")):
                yield parent
        yield target


GRAPH = {module: {target for target in _imported(module) if target != module} for module in MODULES}
# For cycles, a type-only import counts too: two modules that name each other's types
# are one concept split in two, whichever of them imports the other only to annotate.
# (Here an import counts for the module it names, not for the packages it runs.)
DESIGN_GRAPH = {
    module: {target for target in _imported(module, typing_too=True) if target != module} for module in MODULES
}


def _layer(module: str) -> int:
    top = module.removeprefix("askai_graph").removeprefix(".").split(".")[0]
    for rank, (_, members) in enumerate(LAYERS):
        if top in members:
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module in ``graph`` (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
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

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles(GRAPH) == []


def test_no_two_modules_import_each_other_even_for_type_checks() -> None:
    assert _cycles(DESIGN_GRAPH) == []


def test_a_run_knows_nothing_of_the_cache_around_it() -> None:
    # One owner (``answering``) looks up, runs on a miss and remembers; the run only streams.
    around = {"askai_graph.server.answers.answering", "askai_graph.server.answers.cache"}
    assert around & DESIGN_GRAPH["askai_graph.server.answers.run"] == set()


def test_the_top_level_holds_at_most_twelve_modules() -> None:
    # Everything else lives in a package named for its role (docs/ARCHITECTURE.md).
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


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
    assert "askai_graph.indexing" in GRAPH["askai_graph.models.providers"]  # via askai_graph.indexing.loader
    answering, thread_run = "askai_graph.server.answers.answering", "askai_graph.server.answers.thread_run"
    assert thread_run in DESIGN_GRAPH[answering]  # under TYPE_CHECKING
    assert thread_run not in GRAPH[answering]


# The packages of the package (``askai_graph.server``, ``askai_graph.mcp``...; a top-level module is its own).
def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


PACKAGE_GRAPH: dict[str, set[str]] = {}
for _module, _targets in DESIGN_GRAPH.items():
    PACKAGE_GRAPH.setdefault(_package(_module), set()).update(
        _package(target) for target in _targets | GRAPH[_module] if _package(target) != _package(_module)
    )
PACKAGE_GRAPH.pop("askai_graph", None)  # the root's lazy public names are no package of their own


def _named_modules(module: str) -> set[str]:
    """Return the modules of the package that ``module`` names in a string (a load by name, ``importlib``)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return {
        node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in MODULES
    } - {module}


def _defines_router(module: str) -> bool:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and node.name == "router" for node in tree.body)


DESK = "askai_graph.server.answers.desk"
# The HTTP face: the ``routes`` package (``/mcp``'s stand-in too), and any other module with a router.
HTTP_ROUTES = {module for module in MODULES if module.startswith("askai_graph.server.routes.")} | {
    module for module in MODULES if module.startswith("askai_graph.server.") and _defines_router(module)
}
MCP_FACE = {module for module in MODULES if _package(module) == "askai_graph.mcp"}


def test_no_two_packages_import_each_other() -> None:
    assert _cycles({package: PACKAGE_GRAPH.get(package, set()) for package in PACKAGE_GRAPH}) == []


def test_the_faces_never_import_each_other_and_both_answer_through_the_desk() -> None:
    both_ways = [(HTTP_ROUTES, MCP_FACE), (MCP_FACE, HTTP_ROUTES)]
    crossing = sorted(
        f"{module} imports {target}"
        for faces, others in both_ways
        for module in faces
        for target in GRAPH[module] | DESIGN_GRAPH[module]
        if target in others
    )
    assert crossing == []
    assert DESK in DESIGN_GRAPH["askai_graph.server.routes.chat"] and DESK in DESIGN_GRAPH["askai_graph.mcp.tools"]


# The server's roles, each a subpackage (docs/ARCHITECTURE.md), lowest first, with the roles each
# may import. The modules at the server's root (``app``, ``lifespan``, ``serving``, ``protocol``)
# wire the roles together: they may import any role, and no role imports them.
SERVER = "askai_graph.server"
SERVER_ROLES: dict[str, frozenset[str]] = {
    "guards": frozenset(),
    "scaleout": frozenset({"guards"}),
    "answers": frozenset({"guards", "scaleout"}),
    "routes": frozenset({"guards", "scaleout", "answers"}),
    "dashboard": frozenset({"guards", "scaleout"}),
    "housekeeping": frozenset({"guards"}),
}
SERVER_WIRING = frozenset({"app", "lifespan", "serving", "protocol"})


def _server_part(module: str) -> str | None:
    """Return the role (or wiring module) of the server that ``module`` is in; None outside the server's parts."""
    if not module.startswith(SERVER + "."):
        return None
    return module.removeprefix(SERVER + ".").split(".")[0]


def _server_imports() -> set[tuple[str, str]]:
    """Return each (part, part) pair of the server where a module of the first imports one of the second."""
    pairs = set()
    for module in MODULES:
        for target in DESIGN_GRAPH[module] | GRAPH[module]:
            part, other = _server_part(module), _server_part(target)
            if part and other and part != other:
                pairs.add((part, other))
    return pairs


@pytest.mark.parametrize("module", sorted(module for module in MODULES if _server_part(module)))
def test_every_server_module_is_in_a_role_or_wires_them(module: str) -> None:
    assert _server_part(module) in SERVER_ROLES.keys() | SERVER_WIRING


def test_a_server_role_imports_only_the_roles_below_it_and_never_the_wiring() -> None:
    # So the desk (``answers``) never imports a face or the dashboard, and no role imports
    # ``app``: each role can be read, and tested, with only the ones under it.
    against = sorted(
        f"{part} imports {target}"
        for part, target in _server_imports()
        if part in SERVER_ROLES and target not in SERVER_ROLES[part]
    )
    assert against == []


def test_no_two_parts_of_the_server_import_each_other() -> None:
    graph: dict[str, set[str]] = {part: set() for part in SERVER_ROLES.keys() | SERVER_WIRING}
    for part, target in _server_imports():
        graph[part].add(target)
    assert _cycles(graph) == []


def test_every_router_is_a_face_in_routes_or_the_dashboard() -> None:
    routers = {module for module in MODULES if _server_part(module) and _defines_router(module)}
    assert {_server_part(module) for module in routers} == {"routes", "dashboard"}


def test_the_one_load_by_name_against_the_import_order_is_the_mcp_face_on_first_use() -> None:
    # A module named in a string and imported by name (``importlib``) is a dependency the
    # graphs above cannot see. Only one goes against them: ``/mcp`` loads the MCP face on its
    # first request, so the SDK's half second of imports never lands on a server's start.
    against = sorted(
        (module, named)
        for module in MODULES
        for named in _named_modules(module)
        if _package(named) != _package(module) and _package(module) in _reachable(_package(named))
    )
    assert against == [("askai_graph.server.routes.mcp_endpoint", "askai_graph.mcp.server")]


def _reachable(package: str) -> set[str]:
    seen, todo = set(), [package]
    while todo:
        for target in PACKAGE_GRAPH.get(todo.pop(), set()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_only_the_wiring_reaches_into_langgraphs_private_modules() -> None:
    # ``wiring.py`` needs LangGraph's own node runnable (docs/ARCHITECTURE.md says why); nothing else may.
    private = sorted(
        module
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom | ast.Import)
        and any(
            name.startswith("langgraph._")
            for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
        )
    )
    assert private == ["askai_graph.wiring"]
