"""Short fuzz run in the normal suite (seconds): hypothesis-drawn values and seeded mutations of real files through
every parser, and one mixed batch per ingestor; the long run is ``python tests/fuzz_harness.py --cases 10000``
(see :mod:`fuzz_harness`)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_harness as fh
from conftest import require

TARGETS = fh.targets()


def _seeds(name: str) -> list[str]:
    seeds = TARGETS[name].seeds
    require(seeds, f"no seed files for {name} (../shared/corpus missing?)", corpus=True)
    return seeds


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutants_parse_or_fail_with_the_projects_error(name, data):
    seeds = _seeds(name)
    text = seeds[data.draw(st.integers(0, len(seeds) - 1), label="seed")]
    rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
    mutant = fh.mutate(text, rng, as_json=TARGETS[name].as_json, value=data.draw(fh.values(), label="value"))
    assert fh.check(TARGETS[name], mutant) in (None, "refused")


@pytest.mark.parametrize("name", sorted(n for n, t in TARGETS.items() if t.ingestor))
def test_a_batch_mixing_mutants_loses_no_valid_file(name):
    tally = fh.run(name, cases=40, seed=1, batch_every=40)
    assert tally.crashes == [] and tally.lost == [] and tally.batches == 1


def test_the_seeds_themselves_are_read():
    for name, target in TARGETS.items():
        outcomes = [fh.check(target, s) for s in target.seeds[:10]]
        assert set(outcomes) <= {None, "refused"} and None in outcomes, name  # IAM: a few corpus files are not IAM
