"""Fixtures of this test folder. ``core_policy``: the shipped bundle without the gates that need a trained NLI model or
a critic model (nli_entailment, semantic_critic_sync), so these tests exercise the embedding layer with the
deterministic gates only; tests that need the NLI gate pass a real backend."""

from __future__ import annotations

import pytest
from controlplane.policy_bundles.loader import load_bundle, parse_bundle

MODEL_GATES = {"nli_entailment", "semantic_critic_sync"}


@pytest.fixture(scope="session")
def core_policy():
    data = load_bundle().bundle.model_dump(mode="json", exclude_none=True)
    data["name"] = "embedding-tests"
    data["gates"] = [g for g in data["gates"] if g["gate_id"] not in MODEL_GATES]
    return parse_bundle(data, source="tests:core_policy")


@pytest.fixture
def serve(control_plane, core_policy):
    """``serve(outputs, **plane_options)`` -> (base_url, plane): uvicorn in a background thread on a free loopback
    port, answering with a scripted model. Stopped after the test."""
    from controlplane.server import BackgroundServer

    servers = []

    def start(outputs, app_options=None, **options):
        options.setdefault("policy", core_policy)
        plane = control_plane(outputs, **options)
        server = BackgroundServer(plane.app(**(app_options or {}))).start()
        servers.append(server)
        return server.url, plane

    yield start
    for server in servers:
        server.stop()
