"""``relate-server``: run the Relate server, or ``--check host:port`` a running one."""
from __future__ import annotations

import asyncio
import logging
import sys

import structlog

from .config import Config, load_config
from .startup import StartupError

SWITCH_INTERVAL_S = 0.0005
SWITCH_INTERVAL_FAST_S = 0.0001
EXIT_USAGE = 2


def configure_logging(config: Config) -> None:
    level = getattr(logging, config.log_level.upper())
    renderer = (structlog.processors.JSONRenderer() if config.log_format == "json"
                else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty()))
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                    structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True)


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 stopped cleanly, 2 bad settings or a start-up failure (one line on stderr)."""
    try:
        return _main(argv)
    except SystemExit as exc:
        if isinstance(exc.code, str):        # our one-line start-up errors; argparse's own exit as 2
            print(exc.code, file=sys.stderr)
            return EXIT_USAGE
        raise
    except StartupError as exc:
        print(f"relate-server: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _main(argv: list[str] | None) -> int:
    config = load_config(argv)
    if config.check:
        from .net.check import check
        healthy, seen = check(config.check)
        print(("ok: " if healthy else "unhealthy: ") + seen)
        return 0 if healthy else 1
    configure_logging(config)
    # Engine threads are CPU-bound Python; the event loop and short queries must get the GIL back
    # quickly: hand it over every 0.1 ms while at most one statement runs on a session thread, every
    # 0.5 ms (not 5) while several do (session/worker.py's SwitchIntervalPolicy).
    from .session.worker import SWITCH_POLICY
    SWITCH_POLICY.enable(SWITCH_INTERVAL_FAST_S, SWITCH_INTERVAL_S)
    # After a reply the loop polls briefly for the next request rather than sleeping (net/busy_poll.py).
    from .net.busy_poll import BUSY_POLL
    BUSY_POLL.enable(config.busy_poll_us)
    from .app import RelateServer
    server = RelateServer(config)
    if config.loop == "uvloop":
        import uvloop
        uvloop.run(server.run())
    else:
        asyncio.run(server.run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
