"""relate.connect() does not speak Bolt: a bolt:// or neo4j:// URL is a clear error, never a directory."""
import os

import pytest

import relate


@pytest.mark.parametrize("url", ["bolt://127.0.0.1:7687", "neo4j://localhost", "bolt+s://h:1", "NEO4J+SSC://h"])
def test_bolt_urls_are_refused_with_a_hint(tmp_path, url, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(relate.ClientError, match="neo4j driver") as caught:
        relate.connect(url)
    assert "relate://" in str(caught.value)
    assert os.listdir(tmp_path) == []          # nothing was created under a URL-shaped name
