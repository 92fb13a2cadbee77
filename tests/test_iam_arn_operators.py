"""ARN condition operators (AWS IAM User Guide, "Condition operators", ARN condition operators,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN):
``ArnEquals`` and ``ArnLike`` both match each of the six colon-delimited components separately, each with ``*``
and ``?`` wildcards; the negated forms are their NOR."""

import pytest

from graphkit.iam.conditions import ClaimValue, evaluate_conditions

ROLE = "arn:aws:iam::123456789012:role/ci-deploy"


def _eval(op: str, value: str, request: str, *, pattern: bool = False):
    return evaluate_conditions({op: {"aws:PrincipalArn": [value]}},
                               {"aws:principalarn": [ClaimValue(request, pattern=pattern)]})


@pytest.mark.parametrize("op", ["ArnEquals", "ArnLike"])
@pytest.mark.parametrize(("value", "want"), [
    ("arn:aws:iam::123456789012:role/ci-*", True),        # wildcard in the resource
    ("arn:aws:iam::*:role/ci-deploy", True),              # wildcard as a whole component
    ("arn:aws:iam::12345678901?:role/ci-deploy", True),    # single-character wildcard
    (ROLE, True),
    ("arn:aws:iam::123456789012:role/ci-other", False),
    ("arn:aws:iam::*:role/other-*", False),
    ("arn:aws:*:role/ci-deploy", False),                  # five components: no ARN, and * never spans a colon
    ("arn:aws:iam::123456789012", False),                 # not an ARN
])
def test_arn_operators_match_per_component(op, value, want):
    assert _eval(op, value, ROLE) is want
    negated = op.replace("Arn", "ArnNot", 1)
    assert _eval(negated, value, ROLE) is (not want)


def test_a_wildcard_never_spans_a_component_boundary():
    # StringLike would match across the colons; ArnLike matches the account component with '1*' only
    assert evaluate_conditions({"StringLike": {"aws:PrincipalArn": ["arn:aws:iam::1*deploy"]}},
                               {"aws:principalarn": [ClaimValue(ROLE)]}) is True
    assert _eval("ArnLike", "arn:aws:iam::1*:role/ci-deploy", ROLE) is True
    assert _eval("ArnLike", "arn:aws:iam:*:role/ci-deploy", ROLE) is False  # region and account in one '*'


def test_the_resource_component_keeps_its_colons():
    arn = "arn:aws:logs:us-east-1:123456789012:log-group:/ci/build:*"
    assert _eval("ArnEquals", "arn:aws:logs:us-east-1:123456789012:log-group:/ci/*", arn) is True
    assert _eval("ArnEquals", "arn:aws:logs:*:*:log-group:/other/*", arn) is False


def test_a_request_pattern_spanning_components_is_only_possible():
    # the request value stands for any ARN ('*' over its components): some match, some do not
    assert _eval("ArnEquals", ROLE, "arn:*", pattern=True) is None
    assert _eval("ArnEquals", ROLE, "arn:aws:iam::*:role/*", pattern=True) is None
    assert _eval("ArnEquals", ROLE, "arn:aws:iam::*:user/*", pattern=True) is False
    assert _eval("ArnLike", "arn:aws:iam::*:role/*", "arn:aws:iam::123456789012:role/*", pattern=True) is True
