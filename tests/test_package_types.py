"""What a package's declaration files say of its exports: an instance of its class or
interface, a function's declared result, a class's statics, a namespace, a typed variable,
``export =``; bases followed across its relative files."""

from __future__ import annotations

from pathlib import Path

import pytest

from treecomplete.context import context_at
from treecomplete.service import CompletionService
from treecomplete.sources.libraries.known import Libraries

INDEX = ("export * from './client';\nexport { Base } from './base.js';\nimport { Client } from './client';\n"
         "export declare const shared: Client;\nexport declare namespace util {\n  function trim(s: string): string;\n}\n")
CLIENT = ("import { Base, Remote } from './base';\nexport declare class Client extends Base {\n"
          "  static connect(url: string): Client;\n  query(sql: string): Promise<unknown>;\n  readonly pool: Pool;\n}\n"
          "export interface Pool { size: number; drain(): void }\n"
          "export declare function createClient(options?: object): Client;\n"
          "export declare function open(url: string): Promise<Client>;\n"
          "export interface PoolOptions { max?: number; idleTimeout?: number }\n"
          "export declare function createPool(url: string, options?: PoolOptions & { name?: string }): Pool;\n"
          "export declare class Wire extends Remote { send(): void; }\n")
BASE = "export declare class Base {\n  close(): void;\n}\nimport { Socket } from 'net';\nexport declare class Remote extends Socket {}\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    package = tmp_path / "node_modules" / "pkgx"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "pkgx", "main": "index.js", "types": "index.d.ts"}')
    (package / "index.js").write_text("module.exports = {};\n")
    (package / "index.d.ts").write_text(INDEX)
    (package / "client.d.ts").write_text(CLIENT)
    (package / "base.d.ts").write_text(BASE)
    koa = tmp_path / "node_modules" / "koax"
    koa.mkdir()
    (koa / "package.json").write_text('{"types": "index.d.ts"}')
    (koa / "index.d.ts").write_text("declare class Application {\n  listen(port: number): void;\n  context: object;\n}\nexport = Application;\n")
    return tmp_path


def members(folder: Path, text: str, language: str = "typescript"):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    doc = service.open((folder / ("a.ts" if language == "typescript" else "a.js")).as_uri(), language, 1, text)
    libraries.members(context_at(doc, len(doc.data)))
    libraries.loader.wait(10)
    return libraries.members(context_at(doc, len(doc.data)))


INSTANCE = {"close", "pool", "query"}


@pytest.mark.parametrize("text", [
    "import { Client } from 'pkgx';\nconst c = new Client();\nc.",
    "import { Client } from 'pkgx';\nlet c: Client;\nc.",
    "import { createClient } from 'pkgx';\nconst c = createClient();\nc.",
    "import * as px from 'pkgx';\nconst c = px.createClient();\nc.",
    "import { shared } from 'pkgx';\nshared.",
    "import { open } from 'pkgx';\nconst c = await open('x');\nc.",  # what awaiting its result gives
])
def test_an_instance_of_what_a_package_declares(project: Path, text: str):
    found = members(project, text)
    assert set(found.names) == INSTANCE and found.complete  # its base's `close` too, read from base.d.ts


def test_a_package_s_names_themselves_and_export_equals(project: Path):
    assert set(members(project, "import { Client } from 'pkgx';\nClient.").names) == {"connect"}
    assert set(members(project, "import { util } from 'pkgx';\nutil.").names) == {"trim"}
    wire = members(project, "import { Wire } from 'pkgx';\nconst w = new Wire();\nw.")
    assert set(wire.names) == {"send"} and not wire.complete  # a base from another package: not all known
    app = members(project, "const Koa = require('koax');\nconst app = new Koa();\napp.", "javascript")
    assert set(app.names) == {"listen", "context"}
    connected = members(project, "import { Client } from 'pkgx';\nconst p = Client.connect('x');\np.")
    assert set(connected.names) == INSTANCE  # a static method's declared result


def test_broken_declarations_answer_nothing_and_the_server_goes_on(project: Path):
    package = project / "node_modules" / "pkgx"
    (package / "client.d.ts").write_bytes(b"export declare class Client extends {{{ \xff\xfe\n")
    (package / "base.d.ts").write_text("export * from './base';\n")  # a cycle
    assert members(project, "import { Client } from 'pkgx';\nconst c = new Client();\nc.") is None


def test_a_changed_declaration_file_is_read_again(project: Path):
    import os
    import time

    from treecomplete.sources.libraries import package_types

    entry = project / "node_modules" / "pkgx" / "index.d.ts"
    first = package_types.read(entry, [])
    assert package_types.read(entry, []) is first  # unchanged: read once
    client = project / "node_modules" / "pkgx" / "client.d.ts"
    client.write_text(CLIENT.replace("readonly pool: Pool;", "readonly pool: Pool;\n  ping(): void;"))
    os.utime(client, (time.time() + 5, time.time() + 5))
    again = package_types.read(entry, [])
    assert again is not first and "ping" in package_types.instance(again.reader, "Client")[1]


def test_an_options_object_s_keys_by_a_package_s_declarations(project: Path):
    service = CompletionService(libraries=Libraries())
    uri = (project / "p.ts").as_uri()
    text = "import { createPool } from 'pkgx';\ncreatePool(url, { max: 3, "
    service.open(uri, "typescript", 1, text)
    listed = [c.text for c in service.complete_read(uri, 1, len(text.split("\n")[1]), 50).candidates]
    assert {"idleTimeout", "name"} <= set(listed[:8])  # its interface's and its object type's


def test_clear_drops_the_declarations_kept(project: Path):
    from treecomplete.sources.libraries import package_types

    assert members(project, "import { Client } from 'pkgx';\nconst c = new Client();\nc.") is not None
    assert package_types._READ
    libraries = Libraries()
    libraries.clear()  # no read under way: at once
    assert not package_types._READ


def test_an_oversized_declaration_file_is_not_read_and_the_reads_let_requests_in(project: Path, monkeypatch):
    from treecomplete.sources.libraries import package_types

    paused = []
    entry = project / "node_modules" / "pkgx" / "index.d.ts"
    assert len(package_types.read(entry, [], lambda: paused.append(1)).scopes) == 3 and len(paused) == 3  # before each file
    monkeypatch.setattr(package_types, "MAX_FILE", 10)
    package_types.forget()
    assert members(project, "import { Client } from 'pkgx';\nconst c = new Client();\nc.") is None  # none read: nothing known
