"""The HTTP server's limits, in one place the CLI can read without importing the server (starlette, uvicorn)."""

from __future__ import annotations

DEFAULT_MAX_BODY_BYTES = 1_000_000
# A client has this long to send its request headers, and this long for the whole request, counted from the moment
# the connection opens or the previous response ends. uvicorn's own keep-alive timeout (5 s) only starts after a
# response, so without these a half-sent request held its connection indefinitely (issue 16: more than 90 s).
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 30.0
# Host names a server bound to loopback answers to (the Host header check against DNS rebinding).
LOOPBACK_HOST_NAMES = ("127.0.0.1", "localhost", "::1")
