"""Joining the Ray cluster that runs the search shards (`--ray-address`, else a local Ray for tests).

Ray is imported only when a sharded index exists, so servers without one never pay its start-up.
"""
from __future__ import annotations

import os
import sys
import threading

NAMESPACE = "relate"
LOCAL_OBJECT_STORE_BYTES = 128 << 20     # a local Ray's object store: batches and results only
LOOPBACK = "127.0.0.1"
_lock = threading.Lock()
_address: str | None = None


def configure(address: str | None) -> None:
    """The cluster to join (`relate-server --ray-address`); None starts a local Ray on first use."""
    global _address
    _address = address


def is_loopback_address(address: str) -> bool:
    """Whether a Ray address ("host:port") names this machine's loopback (127.0.0.0/8, localhost)."""
    host = address.rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


def keep_ray_on_loopback() -> None:
    """Make Ray keep 127.0.0.1 as this process's node address.

    Ray replaces a node address of 127.0.0.1 (or localhost) with the host's interface address
    (services.resolve_ip_for_localhost), so a local Ray would bind and dial that address. With
    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 it keeps the loopback address; Ray reads the variable once, at
    import, into ray_constants.ENABLE_RAY_CLUSTER, so an already imported Ray is told directly.
    """
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False


def ray_module():
    """Ray, connected (joining the configured cluster, or starting a small local one on loopback)."""
    with _lock:
        address = _address or os.environ.get("RELATE_RAY_ADDRESS") or None
        local = not address or is_loopback_address(address)
        if local:
            keep_ray_on_loopback()
        import ray
        if not ray.is_initialized():
            common = dict(namespace=NAMESPACE, log_to_driver=False, configure_logging=False)
            if local:
                # every socket on 127.0.0.1: the driver's own services and (local Ray) the node's
                common["_node_ip_address"] = LOOPBACK
            if address:
                ray.init(address=address, **common)
            else:
                ray.init(num_cpus=max(2, os.cpu_count() or 1), include_dashboard=False,
                         object_store_memory=LOCAL_OBJECT_STORE_BYTES, **common)
    return ray
