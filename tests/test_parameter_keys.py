"""The keys an object passed to a function of the file or of a project file may hold, read from
the function's code: a destructured parameter, its default, a TypeScript object type, the members
its body reads."""

from __future__ import annotations

from pathlib import Path

from treecomplete.languages import JAVASCRIPT, TYPESCRIPT
from treecomplete.service import CompletionService
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.parameter_keys import function_named, parameter_keys

SERVER = """function listen({ port, host = 'localhost', backlog: b, ...rest }) {}
exports.listen = listen;
exports.connect = function (url, opts = { retries: 3 }) { if (opts?.timeout) {} const { signal, 'bad-key': x } = opts; };
module.exports.make = (name, options) => options.verbose;
"""
TYPED = """export function start(p: { port: number; secure?: boolean }, o?: { quiet: true } = {}) {}
export default function run(config) { return config.entry + config.output; }
"""


def keys(text: str, name: str, index: int, language=JAVASCRIPT) -> list[str] | None:
    function = function_named(language.parser().parse(text.encode()).root_node, name)
    return parameter_keys(function, index) if function is not None else None


def test_keys_from_the_parameter_its_default_its_type_and_what_the_body_reads():
    assert keys(SERVER, "listen", 0) == ["port", "host", "backlog"]  # `...rest` is no key
    assert keys(SERVER, "connect", 1) == ["retries", "timeout", "signal"]  # `'bad-key'` names no identifier
    assert keys(SERVER, "connect", 0) == [] and keys(SERVER, "connect", 2) == []  # `url` is read for nothing
    assert keys(SERVER, "make", 1) == ["verbose"]
    assert keys(TYPED, "start", 0, TYPESCRIPT) == ["port", "secure"] and keys(TYPED, "start", 1, TYPESCRIPT) == ["quiet"]
    assert keys(TYPED, "default", 0, TYPESCRIPT) == ["entry", "output"]
    assert keys(SERVER, "missing", 0) is None


def complete(tmp_path: Path, name: str, text: str, language: str = "javascript") -> list[str]:
    service = CompletionService(libraries=Libraries())
    uri = (tmp_path / name).as_uri()
    service.open(uri, language, 1, text)
    lines = text.split("\n")
    return [c.text for c in service.complete_read(uri, len(lines) - 1, len(lines[-1]), 50).candidates]


def test_through_the_server_for_a_project_file_s_function_and_the_file_s_own(tmp_path: Path):
    (tmp_path / "server.js").write_text(SERVER)
    (tmp_path / "typed.ts").write_text(TYPED)
    listed = complete(tmp_path, "a.js", "const { listen } = require('./server');\nlisten({ port: 80, ")
    assert {"host", "backlog"} <= set(listed[:8])
    assert complete(tmp_path, "b.js", "const srv = require('./server');\nsrv.connect(u, { time")[0] == "timeout"
    assert complete(tmp_path, "c.ts", "import run from './typed';\nrun({ out", "typescript")[0] == "output"
    own = complete(tmp_path, "d.js", "function draw(ctx, { width, height }) {}\ndraw(c, { hei")
    assert own[0] == "height"
