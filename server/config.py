"""Server settings from, in rising priority: defaults, a TOML file (``--config``), ``RELATE_*``
environment variables, command-line flags. Every setting has all four spellings: ``query_timeout`` in
TOML, ``RELATE_QUERY_TIMEOUT`` in the environment, ``--query-timeout`` on the command line."""
from __future__ import annotations

import argparse
import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from relate.protocol import DEFAULT_MAX_MESSAGE_SIZE

from .version import version

DEFAULT_BOLT_LISTEN = "127.0.0.1:7687"


@dataclass
class Config:
    data: str | None = None                 # database directory; None = in memory
    listen: str = "127.0.0.1:7688"
    bolt_listen: str | None = DEFAULT_BOLT_LISTEN   # "host:port" for Bolt clients; "none" turns it off
    bolt_websocket: bool = True             # the Bolt port also speaks Bolt over WebSocket (browser tools)
    http_listen: str | None = None          # "host:port" for the HTTP Query API, console and /health
    http_tx_timeout: float = 30.0           # seconds an idle HTTP explicit transaction lives
    loop: str = "uvloop"                    # uvloop | asyncio
    log_format: str = "console"             # console | json
    log_level: str = "info"
    query_timeout: float | None = None      # seconds; None = no limit
    fulltext_engine: str = "tantivy"        # default engine of new full-text indexes: tantivy | whoosh
    ray_address: str | None = None          # Ray cluster for sharded search indexes; None = a local Ray
    import_dir: str | None = None           # LOAD CSV reads files below it; None = file URLs refused
    auth: bool = True
    init_password: str | None = field(default=None, repr=False)   # creates user neo4j on first start
    init_password_file: str | None = None   # ... read from this file's first line instead
    password_on_command_line: bool = field(default=False, repr=False)   # --init-password was used
    tls_cert: str | None = None
    tls_key: str | None = None
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    max_connections: int = 1000
    max_unauthenticated: int = 100          # connections not yet logged in, at once
    login_timeout: float | None = 10.0      # seconds from accept to a successful LOGON
    message_timeout: float | None = 30.0    # seconds a started message may take to arrive whole
    slow_query_log: float = 1.0             # seconds: statements slower than this are logged (redacted)
    recover_truncate: bool = False          # open a damaged WAL by dropping what follows the damage
    max_statement_bytes: int = 4 * 2 ** 20  # longer statements are refused before parsing
    max_string_chars: int = 64 * 2 ** 20    # largest string a statement may build
    max_list_items: int = 16 * 2 ** 20      # largest list a statement may build (by concatenation)
    batch_size: int = 1000                  # rows per engine fetch inside one PULL
    busy_poll_us: int = 500                 # the loop polls this long after a reply before sleeping
    shutdown_timeout: float = 10.0          # seconds SIGTERM waits for running requests
    ready_file: str | None = None           # written with the bound addresses once listening
    check: str | None = None                # --check host:port: probe a server and exit

    @property
    def host_port(self) -> tuple[str, int]:
        return split_address(self.listen)


@dataclass(frozen=True)
class Serving:
    """What a running server tells its database about itself (``Database.serving``; None embedded), for
    the procedures that report it: SHOW SETTINGS / dbms.listConfig and dbms.routing.getRoutingTable.
    The addresses are the ones bound ("host:port": a port 0 in the settings is the real port here);
    ``bolt`` and ``http`` are None when that listener is off or did not start."""
    config: Config
    listen: str
    bolt: str | None = None
    http: str | None = None


_ENV_ONLY = {"RELATE_PASSWORD": "init_password"}
_BOOL_TRUE = {"1", "true", "yes", "on"}


def split_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"an address is host:port with a port from 0 to 65535, not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _convert(name: str, value: Any) -> Any:
    kind = {f.name: f.type for f in dataclasses.fields(Config)}[name]
    if value is None or not isinstance(value, str):
        return value
    if kind == "bool":
        return value.strip().lower() in _BOOL_TRUE
    if kind == "int":
        return int(value)
    if "float" in kind:
        return float(value) if value.strip() not in ("", "0", "none") else None
    return value


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="relate-server", description="Relate graph database server")
    parser.add_argument("--config", help="a TOML file of settings")
    parser.add_argument("--data", help="database directory (default: in memory)")
    parser.add_argument("--listen", help="host:port for the Relate protocol (default 127.0.0.1:7688)")
    parser.add_argument("--bolt-listen", help="host:port for Bolt clients such as the neo4j driver "
                                              "(default 127.0.0.1:7687; 'none' turns it off)")
    parser.add_argument("--no-bolt-websocket", dest="bolt_websocket", action="store_const", const=False,
                        help="refuse Bolt over WebSocket on the Bolt port (browser-based tools use it)")
    parser.add_argument("--http-listen", help="host:port for the HTTP Query API, browser console and /health")
    parser.add_argument("--http-tx-timeout", type=float,
                        help="seconds an idle HTTP explicit transaction lives (default 30)")
    parser.add_argument("--loop", choices=["uvloop", "asyncio"])
    parser.add_argument("--log-format", choices=["console", "json"])
    parser.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    parser.add_argument("--query-timeout", type=float, help="seconds before a query is terminated")
    parser.add_argument("--fulltext-engine", choices=["tantivy", "whoosh"],
                        help="engine of full-text indexes created without fulltext.engine (default tantivy)")
    parser.add_argument("--ray-address", help="Ray cluster (host:port) that runs sharded search indexes "
                                             "(default: a local Ray, started when one is needed)")
    parser.add_argument("--import-dir", help="directory LOAD CSV may read files from (default: none)")
    parser.add_argument("--no-auth", dest="auth", action="store_const", const=False,
                        help="accept every client without credentials")
    parser.add_argument("--init-password", help="password for user neo4j, created if no user exists "
                                                "(visible to every local user in the process list: prefer "
                                                "RELATE_PASSWORD or --init-password-file)")
    parser.add_argument("--init-password-file", help="read the initial password from this file's first line")
    parser.add_argument("--tls-cert", help="PEM certificate chain: serve TLS")
    parser.add_argument("--tls-key", help="PEM private key for --tls-cert")
    parser.add_argument("--max-message-size", type=int, help="largest request in bytes")
    parser.add_argument("--max-connections", type=int)
    parser.add_argument("--max-unauthenticated", type=int,
                        help="connections that have not logged in yet, at once (default 100)")
    parser.add_argument("--slow-query-log", type=float,
                        help="log statements slower than this many seconds (default 1; passwords redacted)")
    parser.add_argument("--recover-truncate", action="store_const", const=True,
                        help="open a database whose WAL is damaged by dropping every commit from the "
                             "damage on (logged); see `relate check DIR`")
    parser.add_argument("--max-statement-bytes", type=int, help="longest statement accepted (default 4 MiB)")
    parser.add_argument("--max-string-chars", type=int, help="largest string a statement may build")
    parser.add_argument("--max-list-items", type=int, help="largest list a statement may build")
    parser.add_argument("--login-timeout", type=float,
                        help="seconds a new connection has to log in (default 10)")
    parser.add_argument("--message-timeout", type=float,
                        help="seconds a started request may take to arrive whole (default 30)")
    parser.add_argument("--batch-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--busy-poll-us", type=int,
                        help="microseconds the server keeps polling for a client's next request after a "
                             "reply, adaptively (default 500; 0 sleeps at once: less CPU, more latency)")
    parser.add_argument("--shutdown-timeout", type=float, help="seconds SIGTERM waits for running requests")
    parser.add_argument("--ready-file", help="write the bound addresses here once listening")
    parser.add_argument("--check", metavar="HOST:PORT", help="check that a server answers, then exit 0 or 1")
    parser.add_argument("--version", action="version", version=f"relate-server {version()}")
    return parser


def load_config(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Config:
    environ = os.environ if environ is None else environ
    args = _arguments().parse_args(argv)
    names = {f.name for f in dataclasses.fields(Config)}
    settings: dict[str, Any] = {}
    config_path = args.config or environ.get("RELATE_CONFIG")
    if config_path:
        try:
            with open(config_path, "rb") as file:
                table = tomllib.load(file)
        except OSError as exc:
            raise SystemExit(f"relate-server: cannot read {config_path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise SystemExit(f"relate-server: {config_path} is not valid TOML: {exc}") from None
        table = table.get("server", table)     # settings may sit under [server]
        unknown = set(table) - names
        if unknown:
            raise SystemExit(f"relate-server: unknown settings in {config_path}: {', '.join(sorted(unknown))}")
        settings.update(table)
    for name in names:
        value = environ.get("RELATE_" + name.upper())
        if value is not None:
            settings[name] = _convert(name, value)
    for variable, name in _ENV_ONLY.items():
        if environ.get(variable):
            settings[name] = environ[variable]
    for name, value in vars(args).items():
        if value is not None and name in names:
            settings[name] = value
    if args.init_password:
        settings["password_on_command_line"] = True
    if settings.get("init_password_file"):
        try:
            with open(settings["init_password_file"], encoding="utf-8") as file:
                settings["init_password"] = file.readline().rstrip("\r\n")
        except OSError as exc:
            raise SystemExit(f"relate-server: cannot read --init-password-file: {exc}") from None
    try:
        config = Config(**settings)
    except TypeError as exc:
        raise SystemExit(f"relate-server: bad settings: {exc}") from None
    if isinstance(config.bolt_listen, str) and config.bolt_listen.strip().lower() in ("", "none", "off"):
        config.bolt_listen = None
    if bool(config.tls_cert) != bool(config.tls_key):
        raise SystemExit("relate-server: --tls-cert and --tls-key go together")
    for flag, address in (("--listen", config.listen), ("--http-listen", config.http_listen),
                          ("--bolt-listen", config.bolt_listen)):
        if address:                        # "" switches the HTTP listener off
            try:
                split_address(str(address))
            except ValueError as exc:
                raise SystemExit(f"relate-server: bad {flag}: {exc}") from None
    return config
