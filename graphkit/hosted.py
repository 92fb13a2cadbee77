"""GitHub-hosted versus self-hosted ``runs-on`` label sets.

A job whose ``runs-on`` names a GitHub-hosted image runs on a fresh GitHub VM
and never reaches a self-hosted runner, so the resolver must not link it to
one.  The labels GitHub hosts are **data**: ``graphkit/data/github_hosted_labels.json``
(exact names and tight regular expressions, with the documentation URL and
the month it was last reviewed).  A runner inventory can extend or override
them (``github_hosted_labels`` / ``self_hosted_labels``, see
:mod:`ingest.runner_inventory`).

Rules (GitHub docs "Choosing the runner for a job" and "About GitHub-hosted
runners", :data:`DOCS_URL`):

1. a label set containing ``self-hosted`` (any case) is self-hosted;
2. otherwise it is GitHub-hosted when any label is a hosted label, where a
   label is hosted if it is in ``extra_hosted``, or matches the shipped list
   and is not in ``self_hosted`` (the operator's "never hosted" override);
3. otherwise it is self-hosted (custom labels such as ``linux-a`` can only be
   served by self-hosted runners).

Patterns are deliberately tight: ``ubuntu-*`` would wrongly swallow
self-hosted labels seen in real workflows such as ``ubuntu-x64-small`` or
``macos-m1-stable``.

Examples
--------
>>> is_self_hosted(["ubuntu-latest"])
False
>>> is_self_hosted(["self-hosted", "linux"])
True
>>> is_self_hosted(["ubuntu-x64-small"])
True
>>> is_self_hosted(["acme-large-4core"], extra_hosted=["acme-large-4core"])
False
>>> is_self_hosted(["ubuntu-22.04"], self_hosted=["Ubuntu-22.04"])
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

__all__ = ["DOCS_URL", "HostedLabels", "hosted_labels", "is_hosted_label", "is_self_hosted"]

#: Where GitHub lists the labels of its hosted runner images.
DOCS_URL = ("https://docs.github.com/en/actions/using-github-hosted-runners/"
            "using-github-hosted-runners/about-github-hosted-runners")

_DATA_FILE = "github_hosted_labels.json"


@dataclass(frozen=True)
class HostedLabels:
    """The shipped list of GitHub-hosted labels.

    Attributes
    ----------
    exact : frozenset of str
        lower-cased exact labels (``ubuntu-latest``, ``macos-14-xlarge``...).
    patterns : tuple of re.Pattern
        anchored, case-insensitive expressions (``^windows-20[0-9]{2}$``...).
    source : str
        documentation URL the list was taken from.
    reviewed : str
        ``YYYY-MM`` of the last review against that page.
    """

    exact: frozenset[str]
    patterns: tuple[re.Pattern[str], ...] = field(default=())
    source: str = DOCS_URL
    reviewed: str = ""

    def matches(self, label: str) -> bool:
        """True when ``label`` (any case) is in the list."""
        low = label.strip().lower()
        return low in self.exact or any(p.match(low) for p in self.patterns)


@lru_cache(maxsize=1)
def hosted_labels() -> HostedLabels:
    """Load the shipped list from ``graphkit/data/github_hosted_labels.json``.

    Returns
    -------
    HostedLabels

    Raises
    ------
    OSError, ValueError
        only if the installed package data is broken.
    """
    raw = json.loads(resources.files("graphkit.data").joinpath(_DATA_FILE).read_text(encoding="utf-8"))
    return HostedLabels(exact=frozenset(s.lower() for s in raw["exact"]),
                        patterns=tuple(re.compile(p, re.IGNORECASE) for p in raw["patterns"]),
                        source=raw.get("source", DOCS_URL), reviewed=raw.get("reviewed", ""))


def _lower(labels: Iterable[str]) -> set[str]:
    return {str(x).strip().lower() for x in labels}


def is_hosted_label(label: str, *, extra_hosted: Iterable[str] = (), self_hosted: Iterable[str] = ()) -> bool:
    """Whether one label names a GitHub-hosted runner after overrides.

    Parameters
    ----------
    label
        a ``runs-on`` label as written (matching ignores case).
    extra_hosted
        labels to treat as GitHub-hosted in addition (org larger-runner names).
    self_hosted
        labels never treated as GitHub-hosted (wins over the shipped list,
        not over ``extra_hosted``).
    """
    low = label.strip().lower()
    if low in _lower(extra_hosted):
        return True
    if low in _lower(self_hosted):
        return False
    return hosted_labels().matches(low)


def is_self_hosted(labels: Iterable[str], *, extra_hosted: Iterable[str] = (),
                   self_hosted: Iterable[str] = ()) -> bool:
    """Whether a ``runs-on`` label set is served by self-hosted runners.

    Parameters
    ----------
    labels
        the labels of one ``runs-on`` candidate (shape: iterable of str).
    extra_hosted, self_hosted
        overrides, see :func:`is_hosted_label`.

    Returns
    -------
    bool
        True if the set contains ``self-hosted`` or no label is hosted.
    """
    labels = list(labels)
    if "self-hosted" in _lower(labels):
        return True
    extra, never = list(extra_hosted), list(self_hosted)
    return not any(is_hosted_label(x, extra_hosted=extra, self_hosted=never) for x in labels)
