"""Publishing actions: ``publishes_to`` edges to package indexes, registries and buckets.

Target ids: ``target:package_index:{pypi|testpypi|npm|url}``,
``target:registry:{host}``, ``target:bucket:{s3|gs}://{bucket}``.  A secret
read as the password is granted to the target; trusted publishing to PyPI
(no password, ``id-token: write``) also signs PEP 740 attestations with the
job's keyless identity.
Sources: https://github.com/pypa/gh-action-pypi-publish,
https://github.com/docker/login-action, https://github.com/docker/build-push-action,
https://github.com/google-github-actions/upload-cloud-storage
"""

from __future__ import annotations

import re

from graphkit.model import EdgeKind

from ..expressions import resolve
from ..models import scalar_text
from .base import StepRule, StepView, add_target
from .caches import gha_cache
from .signing import keyless

__all__ = ["BUILD_PUSH", "DOCKER_LOGIN", "GCS_UPLOAD", "PYPI_PUBLISH", "S3_UPLOAD", "package_index", "registry_host"]


def package_index(url: str) -> str:
    """The package index identifier of a repository URL or name (``pypi``, ``testpypi``, else the URL).

    >>> package_index("https://upload.pypi.org/legacy/"), package_index("https://test.pypi.org/legacy/")
    ('pypi', 'testpypi')
    """
    low = url.lower().rstrip("/")
    if low in ("pypi", "https://upload.pypi.org/legacy"):
        return "pypi"
    if "test.pypi.org" in low or low == "testpypi":
        return "testpypi"
    return url


def registry_host(image: str) -> str:
    """The registry host of an image reference (``docker.io`` when it names none).

    >>> registry_host("ghcr.io/acme/app:1"), registry_host("acme/app"), registry_host("localhost:5000/x")
    ('ghcr.io', 'docker.io', 'localhost:5000')
    """
    first = image.split("/", 1)[0] if "/" in image else ""
    return first.lower() if first and ("." in first or ":" in first or first == "localhost") else "docker.io"


def pypi_publish(sv: StepView) -> None:
    """pypa/gh-action-pypi-publish: publishes to ``repository-url`` (default PyPI)."""
    values, pattern, _ = sv.value(sv.arg("repository-url", "repository_url"))
    ident = package_index(values[0] if values else pattern or "pypi")
    password = sv.arg("password")
    tid = add_target(sv, "package_index", ident, sv.ev("uses", sv.step.uses))
    sv.from_job(EdgeKind.PUBLISHES_TO, tid, sv.ev("uses", sv.step.uses))
    secrets = sv.secrets_in(password)
    if secrets:
        sv.job.grant(secrets, EdgeKind.PUBLISHES_TO, tid, sv.ev("with.password", password))
    elif sv.job.oidc_id and sv.arg("attestations") not in ("false", "False"):
        keyless(sv, sv.ev("uses", f"{sv.step.uses} (PEP 740 attestations)"))


def docker_login(sv: StepView) -> None:
    """docker/login-action: a possible push to the registry (the login is what a later push uses)."""
    raw = sv.arg("registry")
    values, pattern, _ = sv.value(raw or "docker.io")
    host = (values[0] if values else pattern or "*").lower()
    sv.job.registries.append(host)
    ev = sv.ev("with.registry" if raw else "uses", raw or sv.step.uses)
    tid = add_target(sv, "registry", host, ev)
    sv.from_job(EdgeKind.PUBLISHES_TO, tid, ev, possible=True, props={"via": "registry login"})
    password = sv.arg("password")
    if sv.secrets_in(password):
        sv.job.grant(sv.secrets_in(password), EdgeKind.PUBLISHES_TO, tid, sv.ev("with.password", password))


def build_push(sv: StepView) -> None:
    """docker/build-push-action: ``push: true`` publishes to the hosts of its tags (else of the job's logins)."""
    gha_cache(sv, sv.arg("cache-to"), sv.arg("cache-from"))
    values, _, _ = sv.value(sv.arg("push"))
    if not values or values[0].lower() != "true":
        return
    hosts = []
    for tag in filter(None, re.split(r"[\s,]+", sv.arg("tags") or "")):
        vals, pattern = resolve(tag, sv.ctx)
        hosts += [registry_host(scalar_text(v.value)) for v in vals] if pattern is None else []
    for host in dict.fromkeys(hosts or sv.job.registries):
        ev = sv.ev("with.tags" if hosts else "with.push", sv.arg("tags") or "push: true")
        sv.from_job(EdgeKind.PUBLISHES_TO, add_target(sv, "registry", host, ev), ev, possible=not hosts)


def s3_upload(sv: StepView) -> None:
    """upload-artifact-s3 actions: publishes to ``s3-bucket``."""
    values, pattern, _ = sv.value(sv.arg("s3-bucket"))
    for bucket in values or ([pattern] if pattern else []):
        ev = sv.ev("with.s3-bucket", sv.arg("s3-bucket"))
        sv.from_job(EdgeKind.PUBLISHES_TO, add_target(sv, "bucket", f"s3://{bucket}", ev), ev)


def gcs_upload(sv: StepView) -> None:
    """google-github-actions/upload-cloud-storage: publishes to the bucket of ``destination``."""
    values, pattern, _ = sv.value(sv.arg("destination"))
    for dest in values or ([pattern] if pattern else []):
        ev = sv.ev("with.destination", dest)
        bucket = "gs://" + dest.removeprefix("gs://").split("/", 1)[0]
        sv.from_job(EdgeKind.PUBLISHES_TO, add_target(sv, "bucket", bucket, ev), ev)


PYPI_PUBLISH = StepRule("pypi-publish", pypi_publish, "publish to PyPI (token or trusted publishing)",
                        actions=("pypa/gh-action-pypi-publish",))
DOCKER_LOGIN = StepRule("docker-login", docker_login, "registry login (possible push)",
                        actions=("docker/login-action",))
BUILD_PUSH = StepRule("build-push", build_push, "image push and BuildKit gha cache",
                      actions=("docker/build-push-action",))
S3_UPLOAD = StepRule("s3-upload", s3_upload, "artifact upload to an S3 bucket",
                     actions=("seemethere/upload-artifact-s3", "pytorch/test-infra/.github/actions/upload-artifact-s3"))
GCS_UPLOAD = StepRule("gcs-upload", gcs_upload, "upload to a Cloud Storage bucket",
                      actions=("google-github-actions/upload-cloud-storage",))
