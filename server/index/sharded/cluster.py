"""Joining the Ray cluster that runs the search shards (`--ray-address`, else a local Ray for tests).

Ray is imported only when a sharded index exists, so servers without one never pay its start-up.
"""
from __future__ import annotations

import os
import threading

NAMESPACE = "relate"
LOCAL_OBJECT_STORE_BYTES = 128 << 20     # a local Ray's object store: batches and results only
_lock = threading.Lock()
_address: str | None = None


def configure(address: str | None) -> None:
    """The cluster to join (`relate-server --ray-address`); None starts a local Ray on first use."""
    global _address
    _address = address


def ray_module():
    """Ray, connected (joining the configured cluster, or starting a small local one)."""
    import ray
    with _lock:
        if not ray.is_initialized():
            address = _address or os.environ.get("RELATE_RAY_ADDRESS") or None
            common = dict(namespace=NAMESPACE, log_to_driver=False, configure_logging=False)
            if address:
                ray.init(address=address, **common)
            else:
                ray.init(num_cpus=max(2, os.cpu_count() or 1), include_dashboard=False,
                         object_store_memory=LOCAL_OBJECT_STORE_BYTES, **common)
    return ray
