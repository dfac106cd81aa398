"""``relate-server``: run the Relate server, or ``--check host:port`` a running one."""
from __future__ import annotations

import asyncio
import logging
import sys

import structlog

from .config import Config, load_config


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
    config = load_config(argv)
    if config.check:
        from .net.check import check
        healthy, seen = check(config.check)
        print(("ok: " if healthy else "unhealthy: ") + seen)
        return 0 if healthy else 1
    configure_logging(config)
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
