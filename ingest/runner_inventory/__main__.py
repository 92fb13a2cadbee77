"""``python -m ingest.runner_inventory --schema``: print the inventory format's JSON Schema.

``--write PATH`` writes it instead (used to regenerate
``schemas/runner-inventory.schema.json``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ingest.runner_inventory.models import schema_text


def main(argv: Sequence[str] | None = None) -> int:
    """Print (``--schema``) or write (``--write PATH``) the JSON Schema; returns the exit status (2: usage)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--write"] and len(args) == 2:
        Path(args[1]).write_text(schema_text(), encoding="utf-8")
        return 0
    if args == ["--schema"]:
        sys.stdout.write(schema_text())
        return 0
    sys.stderr.write("usage: python -m ingest.runner_inventory --schema | --write PATH\n")
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
