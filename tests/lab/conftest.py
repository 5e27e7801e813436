"""Fixtures for the lab tests. They need a running lab (`lab/lab up`) and fail without one.

The `lab down` test stops the lab; it runs only with AIPS_LAB_DOWN_TEST=1 and then last.
"""

import os
import uuid

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    docker_config_secret, kube, lab)
from labkit.config import load_versions  # pylint: disable=import-error

DOWN_TEST = "test_lab_down_leaves_nothing_running"


def pytest_collection_modifyitems(config, items):
    down = [i for i in items if i.name == DOWN_TEST]
    rest = [i for i in items if i.name != DOWN_TEST]
    if os.environ.get("AIPS_LAB_DOWN_TEST") == "1":
        items[:] = rest + down
    else:
        items[:] = rest
        config.hook.pytest_deselected(items=down)


@pytest.fixture(scope="session")
def env(lab):  # pylint: disable=redefined-outer-name
    """The variables `lab/lab env` exports (the lab must be up)."""
    return lab


@pytest.fixture(scope="session")
def versions():
    return load_versions()


@pytest.fixture
def namespace(kube):
    """A fresh namespace per test, deleted afterwards."""
    name = f"labtest-{uuid.uuid4().hex[:8]}"
    kube.run("create", "namespace", name)
    kube.wait_for(f"default service account in {name}",
                  lambda: kube.run("get", "sa", "default", "-n", name, check=False).returncode == 0)
    yield name
    kube.run("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def harbor_creds(kube, env, namespace):
    """The `harbor-creds` pull secret, as the collection creates it per model namespace."""
    kube.apply(docker_config_secret("harbor-creds", env), namespace=namespace)
    return "harbor-creds"


@pytest.fixture(scope="session")
def busybox_image(env, versions):
    return f"{env['AIPS_LAB_HARBOR_HOST']}/images-infra/library/busybox:{versions['BUSYBOX_TAG']}"
