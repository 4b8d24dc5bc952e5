"""Package names imported on first use (PEP 562), so importing a package stays cheap.

``askai --help`` and ``askai report`` import ``askai_graph`` and its subpackages; their
public names live in modules that load LangGraph, numpy or FastAPI. A package lists
where each name lives and gets a module ``__getattr__`` that imports it when first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """Return the ``__getattr__`` of ``package``: ``exports`` maps each public name to its module.

    A name read once is kept in ``namespace`` (the package's globals), so later reads
    are plain attribute lookups.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
