"""Types one step on in JavaScript: what a Node module's function returns, a global's property,
a module's default export constructed (``fs.createReadStream(p)``, ``process.stdout``,
``new EventEmitter()``), from the shipped table's "types" and "instances" (build_table.py)."""

from __future__ import annotations

from pathlib import Path

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.calls import call_result
from treecomplete.receivers import Target, bindings
from treecomplete.service import CompletionService
from treecomplete.sources.libraries import javascript, node_table
from treecomplete.sources.libraries.build_table import build, lineage, resolve
from treecomplete.sources.libraries.declarations import Reader
from treecomplete.sources.libraries.known import Libraries

LIB = """
interface String { split(separator: string): string[]; }
declare var String: StringConstructor;
interface StringConstructor { fromCharCode(...codes: number[]): string; }
"""
EVENTS = """
declare module "events" {
    interface EventEmitter extends NodeJS.EventEmitter {}
    class EventEmitter { static defaultMaxListeners: number; }
    export = EventEmitter;
}
declare module "node:events" { import events = require("events"); export = events; }
"""
GLOBALS = """
declare var process: NodeJS.Process;
declare namespace NodeJS {
    interface EventEmitter { on(name: string, listener: Function): this; emit(name: string): boolean; }
    interface Process extends EventEmitter { stdout: WriteStream & { fd: 1 }; cwd(): string; env: ProcessEnv; }
    interface WriteStream extends Writable { columns: number; }
    interface Writable { write(chunk: any): boolean; }
}
"""
STREAMS = """
declare module "stream" {
    import { EventEmitter } from "node:events";
    class internal extends EventEmitter { pipe(destination: any): any; }
    namespace internal {
        class Readable extends internal { read(size?: number): any; }
    }
    export = internal;
}
declare module "fs" {
    import * as stream from "node:stream";
    import { Readable as Source } from "node:stream";
    export class ReadStream extends stream.Readable { bytesRead: number; close(): void; }
    export class Other extends Source { other(): void; }
    export function createReadStream(path: string): ReadStream;
    export function readFileSync(path: string): string;
    export function readFileSync(path: string, options: object): ReadStream;
    export function readText(path: string): Promise<string>;
    export function count(): number | undefined;
}
"""


def fake_packages(tmp_path: Path) -> tuple[Path, Path]:
    typescript, node = tmp_path / "typescript", tmp_path / "node"
    (typescript / "lib").mkdir(parents=True)
    (typescript / "lib" / "lib.es5.d.ts").write_text(LIB)
    node.mkdir()
    for name, text in {"events.d.ts": EVENTS, "globals.d.ts": GLOBALS, "streams.d.ts": STREAMS}.items():
        (node / name).write_text(text)
    return typescript, node


def test_the_reader_keeps_each_class_by_its_place_with_what_its_module_imports():
    reader = Reader()
    reader.read(STREAMS.encode())
    assert reader.imported[("fs", "stream")] == "stream.*" and reader.imported[("fs", "Source")] == "stream.Readable"
    assert reader.declared["fs.ReadStream"].bases == [("fs", "stream.Readable")]
    assert resolve(reader, "fs", "stream.Readable") == "stream.Readable" == resolve(reader, "fs", "Source")
    assert lineage(reader, "fs.ReadStream") == ["fs.ReadStream", "stream.Readable", "stream.internal"]
    returns = reader.modules["fs"].returns
    # a string's members are String's; overloads whose results differ, one a string: not known
    assert returns == {"createReadStream": "ReadStream", "readFileSync": "", "readText": "Promise", "count": "Number"}
    assert reader.modules["fs"].awaits == {"createReadStream": "", "readFileSync": "", "readText": "String", "count": ""}


def test_the_table_says_what_a_call_or_a_property_is_and_its_members_with_what_it_extends(tmp_path: Path):
    table = build(*fake_packages(tmp_path))
    types = table["types"]
    assert types["fs.createReadStream()"] == "fs.ReadStream" and "fs.readFileSync()" not in types
    assert types["process.stdout"] == "WriteStream"  # `WriteStream & { fd: 1 }`
    assert types["process.cwd()"] == "String" == types["fs.readText().await"]  # `await readText(p)`
    assert types["fs.ReadStream()"] == "fs.ReadStream"  # a module's class constructed (`new ReadStream()`)
    assert types["events()"] == "events.EventEmitter"  # `export = EventEmitter`, a class
    assert "process.env" not in types  # ProcessEnv is declared nowhere
    instances = table["instances"]
    assert {"bytesRead", "close", "read", "pipe", "on", "emit"} <= set(instances["fs.ReadStream"])  # up to EventEmitter
    assert {"columns", "write"} <= set(instances["WriteStream"]) and "defaultMaxListeners" not in instances["events.EventEmitter"]
    assert {"on", "emit"} <= set(instances["events.EventEmitter"])
    assert set(instances["String"]) == {"split"}  # a global class's, as before


def test_the_shipped_table_reads_node_s_instances():
    def names(target: Target) -> set[str]:
        members, _ = javascript.read(None, target)
        return set(members.names) if members is not None else set()

    assert {"pipe", "on", "close", "bytesRead"} <= names(Target("fs", ("createReadStream()",)))
    assert {"write", "columns", "on"} <= names(Target("", ("process", "stdout")))
    assert {"write", "columns"} <= names(Target("process", ("stdout",)))  # `const process = require('process')`
    assert {"listen", "close", "on"} <= names(Target("http", ("createServer()",)))
    assert {"emit", "on", "once"} <= names(Target("node:events", ("()",)))
    assert {"update", "digest"} <= names(Target("crypto", ("createHash()",)))
    assert names(Target("fs", ("noSuchFunction()",))) == set() and names(Target("", ("process", "noSuch"))) == set()
    assert {"split", "replace"} <= names(Target("path", ("join()",)))  # `const path: PlatformPath; export = path`
    assert {"isDirectory", "size"} <= names(Target("fs/promises", ("stat()", "await")))  # `await stat(p)`
    assert {"slice", "forEach"} <= names(Target("", ("process", "argv"))) and names(Target("fs", ("readdirSync()",)))
    assert node_table.typed(Target("fs", ("createReadStream()",))) and node_table.typed(Target("", ("process", "stdout")))
    assert not node_table.typed(Target("./local", ("make()",))) and not node_table.typed(Target("fs", ("readFileSync()",)))


def at_end(text: str, language=JAVASCRIPT):
    return context_at(Document("file:///w/a.js", text, 1, language), len(text.encode()))


HEAD = "const fs = require('fs');\nconst { createServer } = require('http');\nconst Emitter = require('events');\n"


def test_a_call_s_result_as_the_receiver_or_assigned_to_it():
    cases = {
        "fs.createReadStream(p).": Target("fs", ("createReadStream()",)),
        "const s = fs.createReadStream(p);\ns.": Target("fs", ("createReadStream()",)),
        "const srv = createServer(app);\nsrv.": Target("http", ("createServer()",)),
        "const e = new Emitter();\ne.": Target("events", ("()",)),
        "const b = Buffer.from(x);\nb.": Target("", ("Buffer", "from()")),  # a global's
        "const x = other(1);\nx.": None, "x.": None,
        "const s = await fs.createReadStream(p);\ns.": Target("fs", ("createReadStream()", "await")),
        "(await fs.readText(p)).": Target("fs", ("readText()", "await")),
    }
    for text, expected in cases.items():
        context = at_end(HEAD + text)
        assert call_result(context, bindings(context.tree, JAVASCRIPT, [(0, len(context.data))])) == expected, text
    other = "function f() {\n  const s = fs.createReadStream(p);\n}\nfunction g(s) {\n  s."  # another function's `s`
    context = at_end(HEAD + other)
    assert call_result(context, bindings(context.tree, JAVASCRIPT, [(0, len(context.data))])) is None
    python = at_end("import os\nx = os.getcwd()\nx.", PYTHON)
    assert call_result(python, {}) is None  # Python's calls are target_of's


def complete(text: str, tmp_path: Path) -> list[str]:
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.js").as_uri()
    service.open(uri, "javascript", 1, text)
    lines = text.split("\n")
    completion = service.complete_read(uri, len(lines) - 1, len(lines[-1]), 50)
    return [c.text for c in completion.candidates]


def test_members_of_what_a_node_call_returned_and_of_a_global_s_property(tmp_path: Path):
    assert complete(HEAD + "const stream = fs.createReadStream(p);\nstream.pi", tmp_path)[0] == "pipe"
    assert complete("process.stdout.wr", tmp_path)[0] == "write"
    assert complete(HEAD + "const srv = createServer(handle);\nsrv.lis", tmp_path)[0] == "listen"
    assert "emit" in complete(HEAD + "const bus = new Emitter();\nbus.em", tmp_path)


def test_a_node_class_constructed_or_extended_is_its_instance_and_the_class_itself_its_statics(tmp_path: Path):
    def known(text: str) -> set[str]:
        libraries = Libraries()
        context = context_at(Document((tmp_path / "a.js").as_uri(), text, 1, JAVASCRIPT), len(text.encode()))
        found = libraries.members(context)
        libraries.loader.wait(5)
        found = libraries.members(context)
        return set(found.names) if found is not None else set()

    url = "const { URL } = require('url');\n"
    assert {"href", "pathname"} <= known(url + "const u = new URL(s);\nu.") and "canParse" not in known(url + "new URL(s).")
    assert "canParse" in known(url + "URL.") and "href" not in known(url + "URL.")
    assert "pathname" in known(url + "const u = URL.parse(s);\nu.")  # a static method's declared result
    assert {"push", "pipe", "_transform"} <= known("const { Transform } = require('stream');\nclass T extends Transform {\n  f() { this.")
    bus = known("const EventEmitter = require('events');\nclass Bus extends EventEmitter {\n  f() { this.")
    assert {"on", "emit"} <= bus and "captureRejections" not in bus  # the instance's, not the module's statics
    assert {"listen", "close"} <= known("const http = require('http');\nconst s = new http.Server();\ns.")


OPTIONS = """
declare module "fs" {
    interface ObjectEncodingOptions { encoding?: string | null; }
    type WriteFileOptions = (ObjectEncodingOptions & { mode?: number }) | string | null;
    class Blob { size: number; }
    export function readFileSync(path: string, options?: { encoding?: null; flag?: string } | null): Buffer;
    export function readFileSync(path: string, options: ObjectEncodingOptions & { flag?: string } | string): string;
    export function writeFileSync(file: string, data: ObjectEncodingOptions, options?: WriteFileOptions): void;
    export function open(path: string, opts: Blob | { flags?: string }): void;
}
"""


def test_the_table_keeps_what_an_options_parameter_may_hold(tmp_path: Path):
    typescript, node = fake_packages(tmp_path)
    (node / "options.d.ts").write_text(OPTIONS)
    options = build(typescript, node)["options"]
    assert options["fs.readFileSync()"] == {"1": ["encoding", "flag"]}  # both overloads, inline and named
    assert options["fs.writeFileSync()"] == {"2": ["encoding", "mode"]}  # through a type alias; `data` is no options
    assert options["fs.open()"] == {"1": ["flags"]}  # a class is no options object


def option_context(text: str):
    from treecomplete.sources.options import option_keys

    context = at_end(text)
    found = option_keys(context, Libraries())
    return sorted(found.names) if found is not None else None


def test_an_options_object_s_keys_at_a_key_of_an_object_passed_to_a_known_call():
    head = "const fs = require('fs');\nconst { spawn } = require('child_process');\n"
    assert option_context(head + "fs.readFileSync(p, { ") == ["encoding", "flag"]
    assert option_context(head + "fs.readFileSync(p, { encoding: 'utf8', ") == ["flag"]  # written already
    assert option_context(head + "fs.readFileSync(p, {\n  flag,\n  ") == ["encoding"]
    assert "stdio" in option_context(head + "spawn('ls', ['-l', f(a, b)], { cwd: dir, ")  # the third argument
    assert "cwd" not in option_context(head + "spawn('ls', ['-l'], { cwd: dir, ")  # one written is not offered again
    assert option_context(head + "fs.readFileSync({ ") is None  # the first argument is a path
    assert option_context(head + "fs.readFileSync(p, { encoding: ") is None  # a value, not a key
    assert option_context(head + "unknown(p, { ") is None and option_context(head + "const o = { ") is None


def test_option_keys_through_the_server(tmp_path: Path):
    head = "const fs = require('fs');\n"
    assert complete(head + "fs.mkdirSync(dir, { rec", tmp_path)[0] == "recursive"
    assert complete(head + "fs.readdirSync(dir, { encoding: 'utf8', with", tmp_path)[0] == "withFileTypes"
