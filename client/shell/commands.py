"""Shell commands (``:param``, ``:begin``, ...): their names, help, and argument parsing."""
from __future__ import annotations

import re
from dataclasses import dataclass

COMMANDS: dict[str, str] = {
    ":help": "show this help",
    ":param": ":param name => <expression>  set a parameter (the expression is Cypher, evaluated by "
              "the database); :param {a: 1, b: 'x'} sets several; :param clear forgets them all",
    ":params": "list the parameters (:params clear forgets them all)",
    ":begin": "open an explicit transaction",
    ":commit": "commit the open transaction",
    ":rollback": "roll back the open transaction",
    ":timing": "toggle showing how long each statement took",
    ":schema": "labels with their indexes and constraints, and which relationship types join which labels",
    ":export": ":export FILE <statement>  write the statement's result to FILE (.csv, .jsonl or .parquet)",
    ":quit": "leave the shell (also :exit and Ctrl-D)",
    ":exit": "leave the shell",
}

_NAME = r"(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)"
_ASSIGNMENT = re.compile(rf"\s*(?P<name>{_NAME})\s*(?:=>|:)\s*(?P<expr>.+?)\s*\Z", re.S)


class UsageError(Exception):
    """A shell command was misspelled or given bad arguments."""


@dataclass(frozen=True)
class Command:
    name: str          # lower-case, with its colon: ":param"
    argument: str      # the rest of the line, stripped


def parse_command(text: str) -> Command:
    """``:Param  x => 1;`` -> Command(":param", "x => 1"). A trailing ``;`` is allowed and dropped."""
    text = text.strip()
    if text.endswith(";"):
        text = text[:-1].rstrip()
    name, _, argument = text.partition(" ")
    name = name.lower()
    if name not in COMMANDS:
        raise UsageError(f"unknown command {name}; :help lists the commands")
    return Command(name, argument.strip())


@dataclass(frozen=True)
class ParamAction:
    """What a ``:param`` line asks for: set ``name`` to ``expression``, set a ``{map}``, list, clear."""
    kind: str                   # "set" | "set_map" | "list" | "clear"
    name: str | None = None
    expression: str | None = None


def parse_param(argument: str) -> ParamAction:
    argument = argument.strip()
    if argument in ("", "list"):
        return ParamAction("list")
    if argument == "clear":
        return ParamAction("clear")
    if argument.startswith("{"):
        return ParamAction("set_map", expression=argument)
    match = _ASSIGNMENT.match(argument)
    if match is None:
        raise UsageError("usage: :param name => <expression>   (for example :param k => 5)")
    name = match["name"]
    if name.startswith("`"):
        name = name[1:-1].replace("``", "`")
    return ParamAction("set", name=name, expression=match["expr"])


def help_text() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["Cypher statements end with ';' and may span lines. Commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, text in COMMANDS.items()]
    lines.append("Keys: Tab completes keywords, labels, types and properties; Ctrl-C cancels the input; "
                 "Ctrl-D leaves.")
    return "\n".join(lines)
