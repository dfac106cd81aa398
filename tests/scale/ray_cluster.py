"""A real multi-process Ray cluster on loopback for the shard tests: a head and one worker node.

Started with `ray start --block` in their own process groups (so the test ends exactly the processes
it started), token authentication with a fresh token, no dashboard, small object stores. Every Ray
process binds and dials 127.0.0.1 only (this workplace allows network traffic on loopback only):
``loopback_violations`` lists any socket of the cluster's processes that is not on 127.x.
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
# Ray replaces 127.0.0.1 with the host's interface address (services.resolve_ip_for_localhost) unless
# this is 0: then the head and the driver keep 127.0.0.1. A worker node cannot start with it at 0
# (`ray start --address` refuses), so it runs through ray_node.py, which answers that lookup with
# 127.0.0.1 instead.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
LOOPBACK = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _is_loopback(ip: str) -> bool:
    return ip.startswith("127.") or ip.startswith("::ffff:127.") or ip == "::1"


class LocalCluster:
    """`ray start --head` plus worker nodes; ``address`` for ray.init / relate's --ray-address."""

    def __init__(self):
        self.port = _free_port()
        self.address = f"{LOOPBACK}:{self.port}"
        self.temp = tempfile.mkdtemp(prefix="relate-ray-")
        self.ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
        self.env = dict(os.environ)
        self.nodes: list[subprocess.Popen] = []

    def _start(self, command: list[str], args: list[str], env: dict) -> subprocess.Popen:
        logfile = open(os.path.join(self.temp, f"node{len(self.nodes)}.log"), "w")
        proc = subprocess.Popen([*command, "start", "--block", "--node-ip-address", LOOPBACK,
                                 "--num-cpus", "1", "--object-store-memory", OBJECT_STORE,
                                 "--disable-usage-stats", *args], stdout=logfile, stderr=subprocess.STDOUT,
                                start_new_session=True, env=env)
        self.nodes.append(proc)
        return proc

    def start_head(self) -> None:
        self._start([self.ray_bin], ["--head", "--port", str(self.port),
                                     "--include-dashboard=false", "--temp-dir", self.temp], self.env)

    def add_worker(self) -> subprocess.Popen:
        env = dict(self.env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="1")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        return self._start([sys.executable, "-m", "tests.scale.ray_node"],
                           ["--address", self.address], env)

    def connect(self, ray, nodes: int, timeout_s: float = 120.0) -> None:
        """ray.init against the head (retrying while it starts), then wait for ``nodes`` live nodes."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                ray.init(address=self.address, _node_ip_address=LOOPBACK, namespace="relate",
                         log_to_driver=False, configure_logging=False)
                break
            except Exception:
                self._check_running()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        while len([n for n in ray.nodes() if n["Alive"]]) < nodes:
            self._check_running()
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {len(ray.nodes())} Ray nodes came up")
            time.sleep(0.5)

    def _check_running(self) -> None:
        for i, proc in enumerate(self.nodes):
            if proc.poll() is not None:
                with open(os.path.join(self.temp, f"node{i}.log")) as log:
                    raise RuntimeError(f"Ray node {i} exited ({proc.returncode}): {log.read()[-2000:]}")

    def pids(self) -> set[int]:
        """Every live process of the cluster's node process groups (GCS, raylets, agents, workers)."""
        import psutil   # Ray's own dependency
        groups = {proc.pid for proc in self.nodes}
        found = set()
        for proc in psutil.process_iter():
            try:
                if os.getpgid(proc.pid) in groups:
                    found.add(proc.pid)
            except (ProcessLookupError, PermissionError):
                continue
        return found

    def loopback_violations(self, extra_pids: set[int] = frozenset()) -> tuple[int, list[str]]:
        """(sockets seen, those of the cluster's processes (and ``extra_pids``) bound to or connected to
        an address outside 127.0.0.0/8)."""
        import psutil
        pids = self.pids() | set(extra_pids)
        seen, bad = 0, []
        for conn in psutil.net_connections("inet"):
            if conn.pid not in pids:
                continue
            seen += 1
            for addr in (conn.laddr, conn.raddr):
                if addr and not _is_loopback(addr.ip):
                    bad.append(f"pid {conn.pid} {conn.status} {conn.laddr} -> {conn.raddr}")
        return seen, bad

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
