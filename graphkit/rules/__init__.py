"""Finding rules, one module each (see :mod:`graphkit.findings`).

:data:`RULE_MODULES` is the one explicit list of rule modules; a meta-test
checks every module here is listed and every rule is documented in the README.
"""

#: Module names under ``graphkit.rules``, imported by :func:`graphkit.findings.rules`.
RULE_MODULES: list[str] = []
