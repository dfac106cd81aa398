"""`ray start` for a worker node on loopback: ``python -m tests.scale.ray_node start --address ...``.

Ray rewrites a node address of 127.0.0.1 into the host's interface address (services.
resolve_ip_for_localhost -> node_ip_address_from_perspective) unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER
is 0, and with that 0 `ray start --address` refuses to start a worker node. So a worker node runs the
ordinary `ray start` with that one lookup answering 127.0.0.1: every address it binds and dials is then
the loopback one it was given.
"""
from __future__ import annotations

import sys

import ray._private.services as services


def _loopback(address=None):
    return "127.0.0.1"


services.node_ip_address_from_perspective = _loopback

if __name__ == "__main__":
    from ray.scripts.scripts import main
    sys.argv = ["ray", *sys.argv[1:]]
    main()
