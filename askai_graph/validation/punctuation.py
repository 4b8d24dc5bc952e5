"""mistletoe without its start-up scan: the Unicode punctuation table is shipped, not computed.

At its first import ``mistletoe.core_tokens`` builds ``punctuation`` (ASCII punctuation and
every code point of a Unicode category P*) by asking ``unicodedata`` about all 1,114,112
code points: about 0.1 s of every process that validates a draft, ``askai ask`` included.
``punctuation_table`` holds the same set for this Python's Unicode version (written by
``scripts/punctuation_table.py``; a test checks it equals mistletoe's own).

``install`` puts a finder first on ``sys.meta_path`` for that one module. It loads the
installed file unchanged (its cached byte code), but runs its top level with a ``sys``
whose ``maxunicode`` is -1, so the scan visits no code point; then it adds the table to
the module's ``punctuation`` set, which its functions read by name. Nothing installed is
edited. When the table was made for another Unicode version, or mistletoe is already
imported, nothing is installed and mistletoe scans as it always did.
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.machinery
import sys
import unicodedata
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from askai_graph.validation.punctuation_table import RANGES, UNIDATA_VERSION

MODULE = "mistletoe.core_tokens"


def table() -> set[str]:
    """Return the shipped punctuation: every character of a Unicode category P*."""
    return {chr(code) for start, end in RANGES for code in range(start, end + 1)}


def install() -> bool:
    """Load mistletoe's punctuation from the table at its first import; return whether it will.

    Call before mistletoe is first imported; a second call changes nothing.
    """
    if UNIDATA_VERSION != unicodedata.unidata_version or MODULE in sys.modules:
        return False
    if not any(isinstance(finder, _TableFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _TableFinder())
    return True


class _NoCodePoints:
    """``sys`` as mistletoe's scan sees it: ``maxunicode`` is -1, so ``range(maxunicode + 1)`` is empty."""

    maxunicode = -1

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)


def _import(name: str, *args: Any, **kwargs: Any) -> Any:
    return _NoCodePoints() if name == "sys" else builtins.__import__(name, *args, **kwargs)


class _TableLoader(importlib.machinery.SourceFileLoader):
    """Runs ``mistletoe.core_tokens`` as installed, the scan emptied, then adds the table."""

    def exec_module(self, module: ModuleType) -> None:
        """Execute the module's own code with ``import sys`` answered by ``_NoCodePoints``."""
        code = self.get_code(module.__name__)
        if code is None:
            raise ImportError(f"no code for {module.__name__}", name=module.__name__)
        namespace = module.__dict__
        namespace["__builtins__"] = {**builtins.__dict__, "__import__": _import}
        try:
            exec(code, namespace)  # noqa: S102  (the installed module's own byte code)
        finally:
            namespace["__builtins__"] = builtins
            namespace["sys"] = sys
        scanned = namespace.get("punctuation")
        if isinstance(scanned, set):
            scanned.update(table())
        else:  # a mistletoe that keeps it otherwise: run the module as it is, scan and all
            exec(code, namespace)  # noqa: S102


class _TableFinder(importlib.abc.MetaPathFinder):
    """Finds ``mistletoe.core_tokens`` where the path finder does, and gives it ``_TableLoader``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Return the module's usual spec with the table loader, or ``None`` (another module, or not a source file)."""
        if fullname != MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or type(spec.loader) is not importlib.machinery.SourceFileLoader:
            return None
        spec.loader = _TableLoader(spec.loader.name, spec.loader.path)
        return spec
