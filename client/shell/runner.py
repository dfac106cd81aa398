"""Runs shell input (Cypher statements and ``:commands``) against a connection and prints the results.

Used by both the interactive shell and the script runner; only how messages are shown differs.
"""
from __future__ import annotations

import re
import time
from typing import Any, Callable

from relate.summary import Summary, _plan_lines

from .commands import UsageError, help_text, parse_command, parse_param
from .completion import SchemaNames
from .error_text import format_error
from .formatting import format_value
from .output import spend_text, summary_line

from .statements import Piece

# Performance hints the shell does not print (MATCH (a {..}), (b {..}) CREATE (a)-->(b), the usual way
# to connect two nodes, is a cartesian product): the summary still carries them.
_QUIET_NOTES = ("Neo.ClientNotification.Statement.CartesianProduct",)


_LOAD = re.compile(r"\bLOAD\s+CSV\b", re.IGNORECASE)


class QuitShell(Exception):
    """``:quit`` / ``:exit`` was given."""


class ShellRunner:
    """One connection's shell state: parameters, the :timing switch, and what to do with each piece."""

    def __init__(self, connection, writer, *, report_error: Callable[[str], None],
                 say: Callable[[str], None], acknowledge: Callable[[str], None] | None = None,
                 notify: Callable[[str], None] | None = None, source: str | None = None, schema: SchemaNames | None = None, timing: bool = False,
                 progress_console=None):
        self.connection = connection
        self.writer = writer
        self.report_error = report_error     # error text (stderr, or red in the terminal)
        self.say = say                       # output the user asked for (:help, :params)
        self.acknowledge = acknowledge or (lambda text: None)   # "transaction open" and the like
        self.notify = notify or self.acknowledge                 # the database's warnings
        self.source = source                 # script name, to place errors as file:line:column
        self.schema = schema
        self.timing = timing
        self.params: dict[str, Any] = {}
        self.progress_console = progress_console   # a terminal: long statements show a live indicator

    def run(self, piece: Piece) -> bool:
        """Run one statement or command; False when it failed (the error is already reported)."""
        try:
            if piece.kind == "command":
                self.run_command(piece.text)
            else:
                self.run_cypher(piece.text)
            return True
        except (QuitShell, BrokenPipeError):
            raise
        except UsageError as exc:
            self.report_error(f"error: {exc}")
        except Exception as exc:  # the user's boundary: any failure is reported, the shell goes on
            self.report_error(format_error(exc, piece=piece, source=self.source))
        return False

    def run_cypher(self, text: str) -> None:
        started = time.perf_counter()
        if self.progress_console is not None and _LOAD.search(text):
            from .progress import running
            with running(self.progress_console, "LOAD CSV", getattr(self.connection, "progress", None)):
                result = self.connection.execute(text, self.params)
        else:
            result = self.connection.execute(text, self.params)
        count = self.writer.write(result.columns, result)
        summary = result.summary
        elapsed = (time.perf_counter() - started) * 1000 if self.timing else None
        self._show_extras(summary)
        self.writer.status(summary_line(result.columns, count, str(summary.counters), elapsed,
                                        spend_text(summary.costs)))
        if self.schema is not None and (summary.counters.contains_updates or summary.query_type != "r"):
            self.schema.stale = True

    def _show_extras(self, summary: Summary) -> None:
        if summary.plan:
            self.say(str(summary.plan))
        for note in summary.notifications:
            if note.get("code", "").startswith(_QUIET_NOTES):
                continue
            text = note.get("description") or note.get("title") or note.get("code", "")
            self.notify(f"{note.get('severity', 'note').lower()}: {text}")

    def refresh_schema(self) -> None:
        """Refetch completion names after writes, but not inside a transaction (it would join it)."""
        if self.schema is not None and self.schema.stale and not self.connection.in_transaction:
            self.schema.refresh(self.connection)

    def run_command(self, text: str) -> None:
        command = parse_command(text)
        handler = getattr(self, "_command_" + command.name[1:])
        handler(command.argument)

    def _command_help(self, argument: str) -> None:
        self.say(help_text())

    def _command_quit(self, argument: str) -> None:
        raise QuitShell

    _command_exit = _command_quit

    def _command_schema(self, argument: str) -> None:
        if argument:
            raise UsageError("usage: :schema")
        row = self.connection.execute("CALL db.schema.visualization()").single()
        self.say(schema_text(row["nodes"], row["relationships"]))

    def _command_timing(self, argument: str) -> None:
        if argument in ("on", "off"):
            self.timing = argument == "on"
        elif argument:
            raise UsageError("usage: :timing [on|off]")
        else:
            self.timing = not self.timing
        self.acknowledge(f"timing {'on' if self.timing else 'off'}")

    def _command_export(self, argument: str) -> None:
        from .export import export_format, export_rows
        path, _, statement = argument.partition(" ")
        if not path or not statement.strip():
            raise UsageError("usage: :export FILE <statement>   (FILE ends in .csv, .jsonl or .parquet)")
        try:
            export_format(path)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        result = self.connection.execute(statement, self.params)
        count = export_rows(path, result.columns, result)
        self.acknowledge(f"{count:,} row{'' if count == 1 else 's'} written to {path}")

    def _command_begin(self, argument: str) -> None:
        self.connection.begin()
        self.acknowledge("transaction open")

    def _command_commit(self, argument: str) -> None:
        self.connection.commit()
        if self.schema is not None:
            self.schema.stale = True
        self.acknowledge("committed")

    def _command_rollback(self, argument: str) -> None:
        self.connection.rollback()
        self.acknowledge("rolled back")

    def _command_param(self, argument: str) -> None:
        action = parse_param(argument)
        if action.kind == "list":
            self._command_params("")
        elif action.kind == "clear":
            self.params.clear()
            self.acknowledge("parameters cleared")
        elif action.kind == "set_map":
            value = self._evaluate(action.expression)
            if not isinstance(value, dict):
                raise UsageError(f"{action.expression} is not a map; use :param name => <expression>")
            self.params.update(value)
            self.acknowledge(", ".join(f"${k} => {format_value(v)}" for k, v in value.items()))
        else:
            self.params[action.name] = self._evaluate(action.expression)
            self.acknowledge(f"${action.name} => {format_value(self.params[action.name])}")

    def _command_params(self, argument: str) -> None:
        if argument == "clear":
            self.params.clear()
            self.acknowledge("parameters cleared")
        elif argument:
            raise UsageError("usage: :params [clear]")
        elif not self.params:
            self.say("no parameters")
        else:
            self.say("\n".join(f":param {k} => {format_value(v)}" for k, v in self.params.items()))

    def _evaluate(self, expression: str) -> Any:
        """A Cypher expression's value, computed by the database with the current parameters."""
        result = self.connection.execute(f"RETURN {expression} AS value", self.params)
        row = result.fetchone()
        result.consume()
        return row[0]


def plan_lines(plan: dict, depth: int = 0) -> list[str]:
    """An EXPLAIN / PROFILE plan as an indented operator tree with its estimates and measurements."""
    return _plan_lines(plan, depth)


def schema_text(nodes: list, relationships: list) -> str:
    """``:schema`` output: one line per label, then one per (start)-[type]->(end) pattern. Takes
    db.schema.visualization()'s nodes and relationships (graph values, as in Neo4j)."""
    if not nodes and not relationships:
        return "(empty schema)"
    lines = ["Labels:"]
    names = {node.id: node.get("name") for node in nodes}
    for node in nodes:
        line = f"  :{node.get('name')}"
        if node.get("indexes"):
            line += "  indexes: " + "; ".join(node.get("indexes"))
        if node.get("constraints"):
            line += "  constraints: " + "; ".join(node.get("constraints"))
        lines.append(line)
    if relationships:
        lines.append("Relationships:")
        for rel in relationships:
            start, end = names.get(rel.start_id), names.get(rel.end_id)
            lines.append(f"  ({':' + start if start else ''})-[:{rel.type}]->({':' + end if end else ''})")
    return "\n".join(lines)
