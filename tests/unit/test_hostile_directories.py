"""Odd database directories are refused loudly with typed errors, never a traceback or an exhausted
machine: a stray WAL segment with a huge number, a file where the search folder goes, Unicode digits in a
segment name; a failed open leaves the directory unlocked."""
from __future__ import annotations

import os

import pytest

import relate
from relate.errors import DatabaseError
from relate.server.dbcheck import check_database


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "db"
    with relate.connect(path) as conn:
        conn.execute("CREATE (:A)")
    return path


def test_a_stray_segment_with_a_huge_number_is_a_gap_not_a_memory_bomb(database):
    (database / "wal-99999999999999999999.log").touch()
    with pytest.raises(DatabaseError, match=r"missing WAL segments .* \(\d+ of them\)"):
        relate.connect(database)
    problems = check_database(str(database))
    assert any("of them" in p.message for p in problems)


def test_a_file_where_the_search_folder_goes_is_refused_and_the_directory_stays_unlocked(database):
    search = database / "search"
    if search.is_dir():
        import shutil
        shutil.rmtree(search)
    search.touch()
    for _ in range(2):       # the second attempt meets the same error, not "already open"
        with pytest.raises(DatabaseError, match="is not a directory"):
            relate.connect(database)
    os.remove(search)
    with relate.connect(database) as conn:
        assert conn.execute("MATCH (n:A) RETURN count(n)").single()[0] == 1


def test_segment_names_with_unicode_digits_are_not_segments(database):
    (database / "wal-\u00b2.log").touch()
    with relate.connect(database) as conn:
        assert conn.execute("MATCH (n:A) RETURN count(n)").single()[0] == 1
