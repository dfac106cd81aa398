"""A real multi-process Ray cluster on loopback for the shard tests: a head and one worker node.

Started with `ray start --block` in their own process groups (so the test ends exactly the processes
it started), token authentication with a fresh token, no dashboard, small object stores.
"""
from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time

OBJECT_STORE = str(80 << 20)
# Ray reads its authentication settings once per process: set them before anything imports ray.
os.environ.setdefault("RAY_AUTH_MODE", "token")
os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(16))
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# Ray replaces 127.0.0.1 with the host's own interface address for its nodes (services.resolve_ip_for_
# localhost), so node-to-node traffic goes to this machine's address; it never leaves the machine.


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalCluster:
    """`ray start --head` plus worker nodes; ``address`` for ray.init / relate's --ray-address."""

    def __init__(self):
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.temp = tempfile.mkdtemp(prefix="relate-ray-")
        self.ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
        self.env = dict(os.environ)
        self.nodes: list[subprocess.Popen] = []

    def _start(self, args: list[str]) -> subprocess.Popen:
        logfile = open(os.path.join(self.temp, f"node{len(self.nodes)}.log"), "w")
        proc = subprocess.Popen([self.ray_bin, "start", "--block", "--node-ip-address", "127.0.0.1",
                                 "--num-cpus", "1", "--object-store-memory", OBJECT_STORE,
                                 "--disable-usage-stats", *args], stdout=logfile, stderr=subprocess.STDOUT,
                                start_new_session=True, env=self.env)
        self.nodes.append(proc)
        return proc

    def start_head(self) -> None:
        self._start(["--head", "--port", str(self.port), "--include-dashboard=false", "--temp-dir", self.temp])

    def add_worker(self) -> subprocess.Popen:
        return self._start(["--address", self.address])

    def connect(self, ray, nodes: int, timeout_s: float = 120.0) -> None:
        """ray.init against the head (retrying while it starts), then wait for ``nodes`` live nodes."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                ray.init(address=self.address, namespace="relate", log_to_driver=False,
                         configure_logging=False)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        while len([n for n in ray.nodes() if n["Alive"]]) < nodes:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {len(ray.nodes())} Ray nodes came up")
            time.sleep(0.5)

    def stop(self) -> None:
        """End the node process groups this cluster started (workers first)."""
        for proc in reversed(self.nodes):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(10)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self.nodes = []
