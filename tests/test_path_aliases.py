"""TypeScript's path aliases (tsconfig's ``paths``): imports read through them, new imports
written with them, and an alias no config maps never read as a project file."""

from __future__ import annotations

from pathlib import Path

from treecomplete.languages import JAVASCRIPT, TYPESCRIPT
from treecomplete.service import CompletionService
from treecomplete.sources.auto_import import offers
from treecomplete.sources.libraries import path_aliases
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.libraries.node_resolution import resolve

from .test_known_members import complete
from .test_project import _indexed, _tree

NEXT_CONFIG = """{
  // as create-next-app writes it
  "compilerOptions": {
    "strict": true,
    /* the alias */
    "paths": { "@/*": ["./src/*"], "@config": ["./src/config/index.ts"], },
  },
}
"""


def test_an_alias_import_reads_the_file_the_nearest_config_maps_it_to(tmp_path: Path):
    _tree(tmp_path, {"tsconfig.json": NEXT_CONFIG, "src/lib/utils.ts": "export const a = 1\n",
                     "src/config/index.ts": "export const b = 2\n", "src/app/page.ts": ""})
    app = tmp_path / "src" / "app"
    assert resolve(app, "@/lib/utils") == tmp_path / "src" / "lib" / "utils.ts"
    assert resolve(app, "@config") == tmp_path / "src" / "config" / "index.ts"
    assert resolve(app, "@/lib/missing") is None and resolve(app, "@other/x") is None
    # a config that extends a base one of the project: the base's paths, relative to its baseUrl
    _tree(tmp_path / "web", {"tsconfig.json": '{"extends": "./tsconfig.base", "compilerOptions": {"strict": true}}',
                             "tsconfig.base.json": '{"compilerOptions": {"baseUrl": "./src", "paths": {"~/*": ["*"]}}}',
                             "src/db.ts": "export const db = 1\n"})
    assert resolve(tmp_path / "web" / "src", "~/db") == tmp_path / "web" / "src" / "db.ts"


def test_a_new_import_is_written_with_the_alias_unless_the_relative_path_is_shorter(tmp_path: Path):
    _tree(tmp_path, {"tsconfig.json": NEXT_CONFIG,
                     "src/lib/utils.ts": "export function cnJoin(...a: string[]) { return a.join(' ') }\n",
                     "src/lib/format.ts": "export function formatDate(d: Date) { return '' }\n",
                     "src/widgets/index.ts": "export function makeWidget() {}\n",
                     "src/components/a.ts": "import { cnJoin } from '@/lib/utils'\nexport const x = cnJoin('a')\n",
                     "src/components/b.ts": "import { cnJoin } from '../lib/utils'\nexport const y = cnJoin('b')\n"})
    assert path_aliases.written(tmp_path / "src" / "app", tmp_path / "src" / "lib" / "utils") == "@/lib/utils"
    assert path_aliases.written(tmp_path, tmp_path / "scripts" / "x") is None
    index = _indexed(tmp_path)
    page = str((tmp_path / "src" / "app" / "page.ts").resolve())
    # two files import it, one through the alias: one offer, not a path through the file system's root
    assert [o.module for o in offers("cnJoin", TYPESCRIPT, index.snapshot(TYPESCRIPT, page), page)] == ["@/lib/utils"]
    assert [o.module for o in offers("formatDate", TYPESCRIPT, index.snapshot(TYPESCRIPT, page), page)] == ["@/lib/format"]
    assert [o.module for o in offers("makeWidget", TYPESCRIPT, index.snapshot(TYPESCRIPT, page), page)] == ["@/widgets"]
    beside = str((tmp_path / "src" / "lib" / "new.ts").resolve())
    assert [o.module for o in offers("formatDate", TYPESCRIPT, index.snapshot(TYPESCRIPT, beside), beside)] == ["./format"]


def test_an_alias_no_config_maps_is_never_read_as_a_project_file(tmp_path: Path):
    # a bundler's alias (vite.config's resolve.alias), no tsconfig: `@/lib/utils` names no file here
    _tree(tmp_path, {"src/lib/utils.js": "export function cnJoin() {}\n",
                     "src/components/a.js": "import { cnJoin } from '@/lib/utils'\ncnJoin()\n"})
    index = _indexed(tmp_path)
    page = str((tmp_path / "src" / "app" / "page.js").resolve())
    modules = [o.module for o in offers("cnJoin", JAVASCRIPT, index.snapshot(JAVASCRIPT, page), page)]
    assert modules == ["../lib/utils"]  # the file defining it, not `../../../../lib/utils`


def test_the_members_of_an_alias_import(tmp_path: Path):
    _tree(tmp_path, {"tsconfig.json": NEXT_CONFIG,
                     "src/lib/api.ts": "export const api = { fetchUser(id: string) {}, fetchPosts() {} }\n"})
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "src" / "app" / "page.ts").as_uri()
    found = complete(service, libraries, uri, "import { api } from '@/lib/api'\napi.", "typescript")
    assert {"fetchUser", "fetchPosts"} <= {c.text for c in found[:5]}
    # a receiver named as a class imported through the alias: the class's members, as a guess
    (tmp_path / "src" / "lib" / "option.ts").write_text("export class Option {\n  enable() {}\n  disable() {}\n}\n")
    found = complete(service, libraries, uri, "import { Option } from '@/lib/option'\nconst option = make()\noption.", "typescript")
    assert {"enable", "disable"} <= {c.text for c in found[:5]}


def test_the_names_an_alias_import_takes_are_those_of_the_file_it_maps_to(tmp_path: Path):
    # two files named utils: `import { | } from '@/lib/utils'` takes the names of src/lib/utils.ts
    _tree(tmp_path, {"tsconfig.json": NEXT_CONFIG,
                     "src/lib/utils.ts": "export function cnJoin() {}\n",
                     "src/components/utils.ts": "export function clampValue() {}\nexport function clearAll() {}\n"})
    service = CompletionService(project=_indexed(tmp_path))
    uri = (tmp_path / "src" / "app" / "page.ts").as_uri()
    before, after = "import { c", " } from '@/lib/utils'\n"
    service.open(uri, "typescript", 1, before + after)
    texts = [c.text for c in service.complete(uri, 0, len(before), 50).candidates]
    assert texts[0] == "cnJoin" and texts.index("cnJoin") < texts.index("clampValue")
