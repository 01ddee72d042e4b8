"""The suite runs offline: outbound sockets are refused except loopback (pytest-socket, pyproject addopts), and the
libraries that like to phone home are switched off."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from pytest_socket import SocketBlockedError, SocketConnectBlockedError


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("address", [("93.184.216.34", 80), ("1.1.1.1", 443), ("10.0.0.1", 8080)])
def test_connect_to_a_non_loopback_address_is_refused(address):
    with pytest.raises((SocketConnectBlockedError, SocketBlockedError)), socket.create_connection(address, timeout=1):
        pass


def test_a_hostname_is_refused_too():
    with pytest.raises((SocketConnectBlockedError, SocketBlockedError, OSError)), \
            socket.create_connection(("huggingface.co", 443), timeout=1):
        pass


def test_loopback_stays_usable():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        with socket.create_connection(server.getsockname(), timeout=1):
            conn, _ = server.accept()
            conn.close()
    finally:
        server.close()


def test_hub_and_telemetry_are_off():
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert os.environ.get("TRANSFORMERS_OFFLINE") == "1"
    assert os.environ.get("ANONYMIZED_TELEMETRY", "").lower() == "false"


def test_chromadb_telemetry_is_off():
    chromadb = pytest.importorskip("chromadb")
    from chromadb.config import Settings

    assert Settings().anonymized_telemetry is False  # read from ANONYMIZED_TELEMETRY
    from controlplane.evidence_pack import vector_store

    source = Path(vector_store.__file__).read_text(encoding="utf-8")
    assert "Settings(anonymized_telemetry=False" in source.replace(" ", "")  # our client passes it explicitly
    del chromadb
