"""One loopback Ray cluster (head + worker) for every shard test in this folder."""
from __future__ import annotations

import pytest

from .ray_cluster import LocalCluster


@pytest.fixture(scope="session")
def ray_cluster():
    import ray

    from relate.server.index.sharded import cluster as relate_cluster
    relate_cluster.keep_ray_on_loopback()     # also when another test imported Ray first
    cluster = LocalCluster()
    cluster.start_head()
    cluster.add_worker()
    try:
        cluster.connect(ray, nodes=2)
        relate_cluster.configure(cluster.address)
        yield cluster
    finally:
        ray.shutdown()
        relate_cluster.configure(None)
        cluster.stop()
