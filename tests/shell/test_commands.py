"""Parsing shell commands and :param."""
import pytest

from relate.shell.commands import Command, ParamAction, UsageError, help_text, parse_command, parse_param


def test_parse_command_lowercases_and_drops_trailing_semicolon():
    assert parse_command(":Param  k => 5;") == Command(":param", "k => 5")
    assert parse_command(":begin") == Command(":begin", "")


def test_unknown_command_is_a_usage_error():
    with pytest.raises(UsageError, match=":help"):
        parse_command(":frobnicate")


@pytest.mark.parametrize("argument, expected", [
    ("k => 5", ParamAction("set", "k", "5")),
    ("k=>  'a => b'  ", ParamAction("set", "k", "'a => b'")),
    ("limit: 10", ParamAction("set", "limit", "10")),
    ("`my key` => [1, 2]", ParamAction("set", "my key", "[1, 2]")),
    ("`a``b` => 1", ParamAction("set", "a`b", "1")),
    ("{a: 1, b: 'x'}", ParamAction("set_map", None, "{a: 1, b: 'x'}")),
    ("", ParamAction("list")),
    ("list", ParamAction("list")),
    ("clear", ParamAction("clear")),
])
def test_parse_param(argument, expected):
    assert parse_param(argument) == expected


@pytest.mark.parametrize("argument", ["k", "k =>", "1k => 2", "=> 5"])
def test_bad_param_lines(argument):
    with pytest.raises(UsageError, match="usage: :param"):
        parse_param(argument)


def test_help_lists_every_command():
    text = help_text()
    for name in (":param", ":params", ":begin", ":commit", ":rollback", ":timing", ":help", ":quit"):
        assert name in text
