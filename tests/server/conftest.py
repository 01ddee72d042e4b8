"""Fixtures of this test folder (``core_policy`` is shared, in tests/conftest.py)."""

from __future__ import annotations

import pytest


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
