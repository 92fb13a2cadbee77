"""``python -m graphkit``: the ``graphkit`` command (:mod:`graphkit.cli`)."""

from graphkit.cli import main

if __name__ == "__main__":  # pragma: no cover - run as a module
    main()
