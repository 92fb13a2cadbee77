"""Loading graphkit's optional compiled extensions (Cython modules under ``graphkit/analysis``).

``pip install`` compiles them when a C compiler is there (``pyproject.toml``, ``[[tool.setuptools.ext-modules]]``,
``optional = true``); each has a pure-Python fallback that gives the same answers, slower.
"""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

__all__ = ["load_extension"]


def load_extension(name: str, api: int, what: str) -> ModuleType | None:
    """The extension module ``graphkit.analysis.<name>``, or None when it was not built or was built from another
    version of its source.

    Parameters
    ----------
    name : str
        The module's name in ``graphkit.analysis`` (e.g. ``"_radius_kernel"``).
    api : int
        The interface number its caller was written for: the module's ``API`` constant must equal it (an editable
        install not rebuilt after a ``git pull`` keeps the old module, whose functions take other arguments).
    what : str
        What it computes, for the warning (e.g. ``"blast-radius kernel"``).

    Returns
    -------
    module or None
        None (after one ``RuntimeWarning`` naming the fix, when the module is stale): the caller falls back.
    """
    try:
        module = importlib.import_module(f"graphkit.analysis.{name}")
    except ImportError:  # no compiler at install time
        return None
    if getattr(module, "API", None) != api:
        warnings.warn(f"graphkit's compiled {what} was built from another version of its source and is not used "
                      "(reinstall graphkit to rebuild it: pip install -e .)", RuntimeWarning, stacklevel=2)
        return None
    return module
