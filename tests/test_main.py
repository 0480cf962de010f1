"""``treecomplete-ls``'s start-up: collections held off while it imports, and back on before it
serves (server/main.py)."""

import gc
import types

import pytest

import treecomplete.server
from treecomplete import main


def test_collections_are_back_on_when_the_server_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    class Server:
        models = types.SimpleNamespace(finish_loading=lambda timeout: None)
        project = types.SimpleNamespace(quiet=lambda seconds: False)

        def start_io(self) -> None:
            seen["enabled"] = gc.isenabled()
            seen["frozen"] = gc.get_freeze_count()

    monkeypatch.setattr(treecomplete.server, "create_server", Server)
    monkeypatch.setattr(main, "setup_logging", lambda level, log_file: None)  # leave pytest's logging be
    gc.unfreeze()
    thresholds = gc.get_threshold()
    try:
        main.main(["--stdio"])
    finally:
        gc.unfreeze()
        gc.enable()
        gc.set_threshold(*thresholds)  # main() leaves full collections to its idle thread
    assert seen["enabled"], "the server would run with the garbage collector off"
    assert seen["frozen"] > 0, "start-up's objects were not kept out of later collections"
