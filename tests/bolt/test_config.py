"""The Bolt listener's setting in all its spellings: default, flag, environment, TOML, off."""
from relate.server.config import DEFAULT_BOLT_LISTEN, load_config


def test_bolt_listen_spellings(tmp_path):
    assert load_config([], {}).bolt_listen == DEFAULT_BOLT_LISTEN == "127.0.0.1:7687"
    assert load_config(["--bolt-listen", "0.0.0.0:17687"], {}).bolt_listen == "0.0.0.0:17687"
    assert load_config([], {"RELATE_BOLT_LISTEN": "127.0.0.1:9999"}).bolt_listen == "127.0.0.1:9999"
    toml = tmp_path / "relate.toml"
    toml.write_text('[server]\nbolt_listen = "none"\n')
    assert load_config(["--config", str(toml)], {}).bolt_listen is None
    assert load_config(["--bolt-listen", "NONE"], {"RELATE_BOLT_LISTEN": "127.0.0.1:1"}).bolt_listen is None
