"""Start-up failures of ``relate-server`` as one line each (the server exits 2 with it), instead of
a traceback: a bad address, a port in use, a database directory already open, no user to log in."""
from __future__ import annotations

import errno
import ssl

from relate.protocol.errors import RelateError


class StartupError(Exception):
    """The server cannot start; the message says why and what to do, in one line."""


def describe(exc: BaseException, what: str) -> str:
    """``exc`` raised while doing ``what`` (e.g. "listen on 127.0.0.1:7688"), as one line."""
    if isinstance(exc, RelateError):
        text = exc.message
    elif isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        text = "the address is already in use (another server? pick another port with --listen)"
    elif isinstance(exc, OSError) and exc.errno in (errno.EADDRNOTAVAIL, errno.EACCES, errno.EPERM):
        text = f"{exc.strerror.lower()}"
    elif isinstance(exc, ssl.SSLError):
        text = f"TLS: {exc.reason or exc}"
    elif isinstance(exc, OSError):
        text = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    else:
        text = str(exc)
    return f"cannot {what}: {' '.join(text.split())}"


NO_USER = ("no user can log in: start once with --init-password PASSWORD (or RELATE_PASSWORD) to create "
           "user neo4j, or run with --no-auth")
