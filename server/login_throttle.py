"""Login throttling: failures counted per client IP and per user name (not per connection, so
parallel connections do not multiply the guesses), each failure answered after a growing delay, a
lockout after too many, and a bounded, pruned table (a flood of names or addresses cannot grow it)."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict

WINDOW_S = 300.0             # failures older than this are forgotten
MAX_ENTRIES = 10_000         # keys kept at most (the oldest go first)
BASE_DELAY_S = 0.25
MAX_DELAY_S = 5.0
LOCKOUT_AFTER = 10           # failures of one user (or one IP, twice as many) within the window
LOCKOUT_S = 60.0             # ... refuse its logins for this long, right password or not


def client_ip(peer: str) -> str:
    """``1.2.3.4:5678`` / ``[::1]:5678`` -> the address without the port."""
    host, sep, port = peer.rpartition(":")
    return (host if sep and port.isdigit() else peer).strip("[]")


class LoginThrottle:
    def __init__(self, *, clock=time.monotonic):
        self._clock = clock
        self._entries: OrderedDict[str, list] = OrderedDict()    # key -> [count, last failure, locked until]
        self._lock = threading.Lock()

    def _keys(self, ip: str, user: str | None) -> list[tuple[str, int]]:
        keys = [("ip:" + ip, 2 * LOCKOUT_AFTER)]
        if user:
            keys.append(("user:" + user[:256], LOCKOUT_AFTER))
        return keys

    def locked_for(self, ip: str, user: str | None) -> float:
        """Seconds the IP or the user stays locked out (0 when logins may be tried)."""
        now = self._clock()
        with self._lock:
            until = [entry[2] for key, _ in self._keys(ip, user) if (entry := self._entries.get(key))]
        return max([u - now for u in until] + [0.0])

    def failed(self, ip: str, user: str | None) -> float:
        """Record a failure; the seconds to wait before answering it."""
        now = self._clock()
        worst = 0
        with self._lock:
            self._prune(now)
            for key, lockout_after in self._keys(ip, user):
                entry = self._entries.pop(key, None)
                if entry is None or now - entry[1] > WINDOW_S:
                    entry = [0, now, 0.0]
                entry[0] += 1
                entry[1] = now
                if entry[0] >= lockout_after:
                    entry[2] = now + LOCKOUT_S
                self._entries[key] = entry          # most recent last
                worst = max(worst, entry[0])
        return min(BASE_DELAY_S * 2 ** min(worst - 1, 16), MAX_DELAY_S)

    def succeeded(self, ip: str, user: str | None) -> None:
        with self._lock:
            if user:
                self._entries.pop("user:" + user[:256], None)

    def _prune(self, now: float) -> None:
        """Drop the oldest entries while they are expired (and not locked) or the table is full."""
        entries = self._entries
        while entries:
            key, entry = next(iter(entries.items()))
            expired = now - entry[1] > WINDOW_S and entry[2] <= now
            if not expired and len(entries) + 2 <= MAX_ENTRIES:     # room for this failure's keys
                break
            del entries[key]

    def __len__(self) -> int:
        return len(self._entries)
