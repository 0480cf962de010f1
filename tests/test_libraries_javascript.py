"""JavaScript modules' members: Node's built-ins and the language's globals from the shipped
table, packages in node_modules resolved as Node resolves them, declarations first."""

from __future__ import annotations

from pathlib import Path

import pytest

from treecomplete.engines.base import Kind
from treecomplete.sources.libraries import javascript
from treecomplete.sources.libraries.declarations import Reader
from treecomplete.sources.libraries.module_exports import javascript_exports
from treecomplete.receivers import Target

from .libraries_fixtures import make_node_modules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_node_modules(tmp_path)
    src = tmp_path / "src" / "deep"
    src.mkdir(parents=True)
    (tmp_path / "src" / "local.js").write_text("exports.localThing = 1;\nexports.localRun = function () {};\n")
    return src


def names(folder: Path | None, target: Target) -> set[str]:
    members, _ = javascript.read(folder, target)
    return set(members.names) if members is not None else set()


def test_node_builtins_and_globals_come_from_the_shipped_table():
    fs, _ = javascript.read(None, Target("fs"))
    assert fs.complete and fs.names["readFileSync"].kind == Kind.FUNCTION
    assert {"readFileSync", "writeFileSync", "existsSync"} <= names(None, Target("node:fs"))
    assert {"join", "resolve", "dirname"} <= names(None, Target("path"))
    assert {"abs", "floor", "PI"} <= names(None, Target("", ("Math",)))
    assert {"parse", "stringify"} <= names(None, Target("", ("JSON",)))
    assert {"keys", "assign"} <= names(None, Target("", ("Object",)))
    assert {"all", "resolve"} <= names(None, Target("", ("Promise",)))
    assert {"log", "error"} <= names(None, Target("", ("console",)))
    assert {"argv", "env", "cwd"} <= names(None, Target("", ("process",)))
    assert {"readFile"} <= names(None, Target("fs/promises"))
    assert names(None, Target("", ("notAGlobal",))) == set()
    assert {"split", "trimEnd", "length"} <= names(None, Target("", ("String", "prototype")))  # an instance's members
    assert {"pathname", "searchParams", "toString"} <= names(None, Target("", ("URL", "prototype")))
    assert {"message", "stack"} <= names(None, Target("", ("TypeError", "prototype")))  # what it extends: Error's
    assert "fromCharCode" not in names(None, Target("", ("String", "prototype")))  # a static is no instance's
    assert names(None, Target("", ("notAGlobal", "prototype"))) == set()


def test_a_package_with_declarations(project: Path):
    found = names(project, Target("typed"))
    assert {"parseThing", "DEFAULT_THING", "ThingMaker"} <= found
    assert "fromJavaScript" not in found and "Thing" not in found  # the .d.ts, not the .js; an interface is no value


def test_a_commonjs_package_up_the_folders(project: Path):
    members, files = javascript.read(project, Target("plain"))
    assert {"plainHelper", "plainValue", "plainMethod", "addedLater"} <= set(members.names)
    assert members.complete and files and files[0].endswith("main.js")
    assert "scopedRun" in names(project, Target("@scope/tool"))  # package.json "exports"
    local, _ = javascript.read(project, Target("../local"))
    assert {"localThing", "localRun"} <= set(local.names)
    assert not local.complete  # the project's own objects may gain members as it runs


def test_bad_packages_are_skipped(project: Path):
    modules = project.parent.parent / "node_modules"
    (modules / "broken").mkdir()
    (modules / "broken" / "package.json").write_text("{not json")
    (modules / "broken" / "index.js").write_text("exports.stillFound = 1;\n")
    (modules / "binary").mkdir()
    (modules / "binary" / "index.js").write_bytes(b"\x00\x01\x02" * 50)
    (modules / "looped").mkdir()
    (modules / "looped" / "index.js").symlink_to(modules / "looped" / "index.js")
    (modules / "huge").mkdir()
    (modules / "huge" / "index.js").write_text("exports.x = 1;\n" * 200_000)
    assert names(project, Target("broken")) == {"stillFound"}  # package.json broken: index.js still read
    for name in ("binary", "looped", "huge", "missing-package"):
        assert names(project, Target(name)) == set()


def test_declarations_reader():
    reader = Reader()
    scope = reader.read(b"declare module 'm' { export function f(): void; namespace n { const x: number } }\n"
                        b"declare var Tool: ToolConstructor;\ninterface ToolConstructor { make(): void; VERSION: string }\n"
                        b"declare module 'g' { export function read(path: string, options?: {a: 1}, ...rest: any[]): void;"
                        b" export const pick = ({ a }, b = 2) => a; }\n")
    assert reader.modules["m"].members(reader.interfaces) == {"f": "f()"}  # a function's kind, then its parameters
    assert reader.modules["g"].members(reader.interfaces) == {"read": "f(path, options?, ...rest)", "pick": "f({…}, b?)"}
    assert scope.types["Tool"] == "ToolConstructor" and set(reader.interfaces["ToolConstructor"]) == {"make", "VERSION"}
    reader.read(b"declare class Url { constructor(s: string); href: string; toJSON(): string; static parse(s: string): Url }\n")
    assert reader.classes["Url"] == {"href": "v", "toJSON": "f()"}  # an instance's members: not the constructor, nor a static
    exported = javascript_exports(b"module.exports = { a, b: 1, c() {} };\nexports.d = function () {};\n"
                                  b"export class E {}\nObject.defineProperty(exports, 'g', { get() {} });\n")
    assert exported == {"a": "v", "b": "v", "c": "f", "d": "f", "E": "c", "g": "v"}
    assert set(javascript_exports(b"module.exports = status\nstatus.message = {}\nstatus.code = function () {}\n")) == {
        "message", "code"}


def test_an_object_exported_as_the_default_or_as_the_module_has_its_keys_as_members():
    assert javascript_exports(b"function isArray(x) {}\nexport default { isArray, trim: (s) => s, VERSION: 1 };\n") == {
        "isArray": "f(x)", "trim": "f", "VERSION": "v"}
    engine = b"const SelectorEngine = {\n  find(selector) {},\n  findOne(selector) {},\n};\nexport default SelectorEngine;\n"
    assert javascript_exports(engine) == {"find": "f", "findOne": "f"}
    assert set(javascript_exports(b"const helpers = { isFunction, writeStream };\nmodule.exports = helpers\n")) == {
        "isFunction", "writeStream"}
    assert javascript_exports(b"var common = exports,\n  url = require('url');\ncommon.setupOutgoing = function (o) {};\n") == {
        "setupOutgoing": "f"}
    assert javascript_exports(b"class Headers {\n  static from(t) {}\n  get(h) {}\n}\nexport default Headers;\n") == {
        "from": "f(t)", "prototype": "v"}  # a default-exported class: its statics, not an instance's methods
    # the grammar parses no keyword as an alias: `return_builder as return` is read from its text
    assert javascript_exports(b"function a() {}\nconst b = 1;\nexport { a as return, b as var, a as ok };\n") == {
        "return": "f()", "var": "v", "ok": "f()"}


def test_a_subpath_import_resolves_through_the_package_s_imports(tmp_path: Path):
    (tmp_path / "package.json").write_text('{"imports": {"#builders": "./src/utils/builders.js", '
                                           '"#internal/*": {"default": "./src/internal/*.js"}, "#gone": "./nowhere.js"}}')
    (tmp_path / "src" / "utils").mkdir(parents=True)
    (tmp_path / "src" / "internal").mkdir()
    (tmp_path / "src" / "utils" / "builders.js").write_text("export function call() {}\nexport function id() {}\n")
    (tmp_path / "src" / "internal" / "flags.js").write_text("export const DIRTY = 1;\n")
    deep = tmp_path / "src" / "phases" / "client"
    deep.mkdir(parents=True)
    assert names(deep, Target("#builders")) == {"call", "id"}
    assert names(deep, Target("#internal/flags")) == {"DIRTY"}
    assert names(deep, Target("#gone")) == set() and names(deep, Target("#unknown")) == set()


def test_an_object_spreading_imported_modules_and_a_json_file_have_their_members(tmp_path: Path):
    (tmp_path / "node").mkdir()
    (tmp_path / "node" / "index.js").write_text("export default { isNode: true, protocols: ['http'] };\n")
    (tmp_path / "utils.js").write_text("export const hasBrowserEnv = false;\nexport const origin = '';\n")
    (tmp_path / "platform.js").write_text("import platform from './node/index.js';\nimport * as utils from './utils.js';\n"
                                          "export default {\n  ...utils,\n  ...platform,\n  extra: 1,\n};\n")
    (tmp_path / "package.json").write_text('{"name": "p", "description": "d", "version": "1.0.0"}')
    assert names(tmp_path, Target("./platform")) == {"hasBrowserEnv", "origin", "isNode", "protocols", "extra"}
    assert names(tmp_path, Target("./package.json")) == {"name", "description", "version"}
    (tmp_path / "broken.json").write_text("{not json")
    assert names(tmp_path, Target("./broken.json")) == set()


def test_an_es_module_s_namespace_holds_its_exports_and_what_it_re_exports_alone(tmp_path: Path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "errors.js").write_text("export function invalid_snippet() {}\nexport * from './more.js';\n")
    (tmp_path / "shared" / "more.js").write_text("export const lifecycle_outside = 1;\n")
    (tmp_path / "errors.js").write_text(
        "export * from './shared/errors.js';\nexport * as flags from './flags.js';\n"
        "export const { a, b: renamed } = make();\nexport function await_invalid() {}\n")
    (tmp_path / "flags.js").write_text("export const DIRTY = 1;\n")
    members, files = javascript.read(tmp_path, Target("./errors.js"))
    assert set(members.names) == {"await_invalid", "invalid_snippet", "lifecycle_outside", "flags", "a", "renamed"}
    assert members.complete and len(files) == 3  # `import * as e` of it: no other name is one of its members
    assert not javascript.read(tmp_path, Target("./flags.js"))[0].names.keys() - {"DIRTY"}
    # a module that may take exports as it runs, or re-exports what was not read: not complete
    (tmp_path / "mixed.js").write_text("export const x = 1;\nmodule.exports.y = 2;\n")
    (tmp_path / "outward.js").write_text("export const x = 1;\nexport * from 'some-package';\n")
    (tmp_path / "through.js").write_text("export * from './mixed.js';\n")
    (tmp_path / "ring_a.js").write_text("export * from './ring_b.js';\nexport const A = 1;\n")
    (tmp_path / "ring_b.js").write_text("export * from './ring_a.js';\nexport const B = 1;\n")
    ring, files = javascript.read(tmp_path, Target("./ring_a.js"))
    assert set(ring.names) == {"A", "B"} and ring.complete and len(files) == 2  # a cycle: each file read once
    for spec in ("./mixed.js", "./outward.js", "./through.js"):
        members, _ = javascript.read(tmp_path, Target(spec))
        assert "x" in members.names and not members.complete, spec


def test_a_project_enum_or_constant_object_has_its_keys_as_members(tmp_path: Path):
    (tmp_path / "common.ts").write_text(
        "export enum Hardfork { Berlin = 'berlin', London, 'not a name' = 3 }\n"
        "export const ServerType = Object.freeze({ Standalone: 'Standalone', Mongos: 'Mongos' } as const);\n"
        "export const Aspect = { READ: Symbol('r'), WRITE: Symbol('w') } satisfies Record<string, symbol>;\n"
        "export interface Shape { area(): number }\n")
    (tmp_path / "codes.js").write_text("export const Codes = Object.freeze({ OK: 0, FAILED: 1 });\n")

    def statics(spec: str, name: str):
        members, _ = javascript.read(tmp_path, Target(spec, (name, javascript.STATICS)))
        return (set(members.names), members.complete) if members is not None else None

    assert statics("./common", "Hardfork") == ({"Berlin", "London"}, True)
    enum, _ = javascript.read(tmp_path, Target("./common", ("Hardfork", javascript.STATICS)))
    assert enum.names["London"].kind == Kind.ENUM_MEMBER and "enum Hardfork" in enum.names["London"].detail
    assert statics("./common", "ServerType") == ({"Standalone", "Mongos"}, True)  # frozen: takes no more keys
    assert statics("./common", "Aspect") == ({"READ", "WRITE"}, False)
    assert statics("./common.js", "Hardfork") == ({"Berlin", "London"}, True)  # TypeScript's `.js` for its `.ts`
    assert statics("./codes.js", "Codes") == ({"OK", "FAILED"}, True)
    (tmp_path / "theme").mkdir()
    (tmp_path / "theme" / "index.tsx").write_text("export const Colors = Object.freeze({ dark: 1, light: 2 });\n")
    (tmp_path / "Button.tsx").write_text("export enum Size { Small, Large }\n")
    assert statics("./theme", "Colors") == ({"dark", "light"}, True)  # a React project's .tsx modules
    assert statics("./Button", "Size") == ({"Small", "Large"}, True)
    assert statics("./common", "Missing") is None
    (tmp_path / "byte_utils.ts").write_text(
        "export type ByteUtils = {\n  allocate: (size: number) => Uint8Array;\n  toUTF8(b: Uint8Array): string;\n};\n"
        "export const ByteUtils: ByteUtils = pick() ? nodeUtils : webUtils;\n"
        "export const Kinds = { A: 1, B: 2 };\nexport type Kinds = (typeof Kinds)[keyof typeof Kinds];\n")
    assert statics("./byte_utils", "ByteUtils") == ({"allocate", "toUTF8"}, True)  # the type written for the value
    utils, _ = javascript.read(tmp_path, Target("./byte_utils", ("ByteUtils", javascript.STATICS)))
    assert utils.names["allocate"].kind == utils.names["toUTF8"].kind == Kind.METHOD  # a function type's property is called
    assert statics("./byte_utils", "Kinds") == ({"A", "B"}, False)  # the value, not the type of the same name


def test_a_variable_has_the_members_of_the_class_its_jsdoc_names(tmp_path: Path):
    (tmp_path / "types.d.ts").write_text("export interface Effect { parent: Effect | null; deps: unknown[] }\n")
    (tmp_path / "effect.js").write_text("export class Effect { run() {} }\n")
    (tmp_path / "batch.js").write_text(
        "/** @import { Effect } from './types' */\n"
        "import { Effect as Made } from './effect.js';\n"
        "export class Batch {\n  #queued = 0;\n  register(e) { this.count = 1; }\n}\n"
        "/** @type {Batch | null} */\nexport let current_batch = null;\n"
        "/**\n * The values.\n * @type {Map<string, number> | null}\n */\nexport let batch_values = null;\n"
        "/** @type {null | Effect} */\nexport let active_effect = null;\n"
        "/** @type {Made} */\nexport let made;\n"
        "/** @type {Batch} */\n\nexport let far = null;\n"  # not right above: says nothing
        "/** @type {string | number} */\nexport let either = null;\n"
        "/** @type {Unknown} */\nexport const cache = new Set();\n")
    assert names(tmp_path, Target("./batch.js", ("current_batch",))) == {"register", "count"}  # no `#private` one
    imported = Target("./batch.js", ("current_batch", javascript.STATICS))  # `import { current_batch }` … `current_batch.`
    assert names(tmp_path, imported) == {"register", "count"}
    assert {"get", "set", "delete"} <= names(tmp_path, Target("./batch.js", ("batch_values",)))
    assert names(tmp_path, Target("./batch.js", ("active_effect",))) == {"parent", "deps"}  # JSDoc's `@import`
    assert names(tmp_path, Target("./batch.js", ("made",))) == {"run"}  # an ES import, under another name
    _, read_from = javascript.read(tmp_path, Target("./batch.js", ("made",)))
    assert [Path(f).name for f in read_from] == ["batch.js", "effect.js"]  # a change to either reads it again
    assert names(tmp_path, Target("./batch.js", ("far",))) == set()
    assert names(tmp_path, Target("./batch.js", ("either",))) == set()
    assert {"add", "has"} <= names(tmp_path, Target("./batch.js", ("cache",)))  # a type it cannot find: the value's


def test_a_call_has_the_members_of_the_class_its_function_s_jsdoc_returns(tmp_path: Path):
    (tmp_path / "batch.js").write_text(
        "export class Batch {\n  flush() {}\n}\n"
        "/**\n * The batch under way.\n * @returns {Batch}\n */\nexport function current() { return new Batch(); }\n"
        "/** @returns {Promise<Batch>} */\nexport async function settled() {}\n"
        "/** @return {Map<string, Batch>} */\nexport const all = () => new Map();\n"
        "export function plain() {}\n")
    assert names(tmp_path, Target("./batch.js", ("current()",))) == {"flush"}
    assert names(tmp_path, Target("./batch.js", ("current()", "await"))) == {"flush"}  # awaited, not a Promise: itself
    assert names(tmp_path, Target("./batch.js", ("settled()", "await"))) == {"flush"}
    assert names(tmp_path, Target("./batch.js", ("settled()",))) == {"then", "catch", "finally"}  # not awaited: a Promise
    assert {"get", "set"} <= names(tmp_path, Target("./batch.js", ("all()",)))
    assert names(tmp_path, Target("./batch.js", ("plain()",))) == set()


def test_a_call_has_the_members_of_the_class_its_function_s_returns_give(tmp_path: Path):
    (tmp_path / "made.js").write_text(
        "export class Made {\n  static create() { return new Made(); }\n  again() { return this; }\n  flush() {}\n}\n"
        "export function make(x) {\n  if (x) { return new Made(); }\n  return new Made();\n}\n"
        "export async function later() { return new Made(); }\n"
        "export function mixed(x) {\n  if (x) return new Made();\n  return 1;\n}\n"
        "export const arrow = () => new Made();\n")
    assert names(tmp_path, Target("./made.js", ("make()",))) == {"again", "flush"}
    assert names(tmp_path, Target("./made.js", ("Made", "create()"))) == {"again", "flush"}
    assert names(tmp_path, Target("./made.js", ("later()", "await"))) == {"again", "flush"}
    assert "flush" not in names(tmp_path, Target("./made.js", ("later()",)))  # not awaited: a Promise
    assert names(tmp_path, Target("./made.js", ("mixed()",))) == set()
    assert names(tmp_path, Target("./made.js", ("arrow()",))) == {"again", "flush"}


def test_a_call_has_the_members_of_the_type_a_typescript_function_declares_it_returns(tmp_path: Path):
    (tmp_path / "queue.ts").write_text(
        "import { Job } from './job';\n"
        "export interface Queue { push(j: Job): void; size: number }\n"
        "export function current(): Queue { return null as any; }\n"
        "export async function next(): Promise<Job> { return null as any; }\n"
        "export const index = (): Map<string, Job> => new Map();\n"
        "export function count(): number { return 0; }\n"
        "export function untyped() { return 1; }\n")
    (tmp_path / "job.ts").write_text("export class Job {\n  run(): void {}\n  id = 0;\n}\n")
    assert names(tmp_path, Target("./queue", ("current()",))) == {"push", "size"}
    assert names(tmp_path, Target("./queue", ("next()", "await"))) == {"run", "id"}  # imported from another file
    assert {"get", "set"} <= names(tmp_path, Target("./queue", ("index()",)))
    assert "toFixed" in names(tmp_path, Target("./queue", ("count()",)))
    assert names(tmp_path, Target("./queue", ("untyped()",))) == set()


def test_a_call_of_a_project_class_s_method_has_what_it_declares_it_returns(tmp_path: Path):
    (tmp_path / "address.ts").write_text(
        "export class Address {\n  host = '';\n  static from(s: string): Address { return new Address(); }\n"
        "  static async load(): Promise<Address> { return new Address(); }\n  toPort(): number { return 1; }\n}\n")
    (tmp_path / "token.js").write_text(
        "export class Token {\n  /** @returns {Token} */\n  static parse(s) { return new Token(); }\n  flush() {}\n}\n")
    assert names(tmp_path, Target("./address", ("Address", "from()"))) == {"host", "toPort"}
    assert names(tmp_path, Target("./address", ("Address", "load()", "await"))) == {"host", "toPort"}
    assert names(tmp_path, Target("./token.js", ("Token", "parse()"))) == {"flush"}
    assert names(tmp_path, Target("./token.js", ("Token", "missing()"))) == set()
