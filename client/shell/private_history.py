"""Shell history that never keeps statements carrying passwords (neither on disk nor for up-arrow)."""
from __future__ import annotations

from prompt_toolkit.history import FileHistory, InMemoryHistory

from relate.protocol.secrets import carries_password


class PrivateFileHistory(FileHistory):
    def append_string(self, string: str) -> None:
        if not carries_password(string):
            super().append_string(string)


class PrivateInMemoryHistory(InMemoryHistory):
    def append_string(self, string: str) -> None:
        if not carries_password(string):
            super().append_string(string)
