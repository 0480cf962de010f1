// Unit tests of the server-finding logic (node --test; run `npm run build` first).
const test = require("node:test");
const assert = require("node:assert");
const os = require("os");
const path = require("path");
const { findServer, ServerNotFound } = require("../dist/serverCommand.js");

function env(overrides) {
  return {
    settingPath: "",
    pythonInterpreter: undefined,
    exists: () => true,
    which: () => undefined,
    hasModule: () => true,
    ...overrides,
  };
}

test("the setting wins and runs the executable with --stdio", () => {
  const found = findServer(env({ settingPath: "/opt/tc/bin/treecomplete-ls", pythonInterpreter: "/usr/bin/python3", which: () => "/usr/bin/treecomplete-ls" }));
  assert.deepStrictEqual(found, { command: "/opt/tc/bin/treecomplete-ls", args: ["--stdio"], source: "setting" });
});

test("a setting naming an interpreter runs the module", () => {
  const found = findServer(env({ settingPath: "/venv/bin/python3.11" }));
  assert.deepStrictEqual(found.args, ["-m", "treecomplete", "--stdio"]);
});

test("a setting is expanded from ~ and must exist", () => {
  const seen = [];
  const found = findServer(env({ settingPath: "~/bin/treecomplete-ls", exists: (f) => (seen.push(f), true) }));
  assert.strictEqual(found.command, path.join(os.homedir(), "bin/treecomplete-ls"));
  assert.throws(() => findServer(env({ settingPath: "/nowhere/treecomplete-ls", exists: () => false })),
    (error) => error instanceof ServerNotFound && /does not exist/.test(error.message));
});

test("the Python interpreter is used when treecomplete is installed in it", () => {
  const found = findServer(env({ pythonInterpreter: "/venv/bin/python", which: () => "/usr/bin/treecomplete-ls" }));
  assert.deepStrictEqual(found, { command: "/venv/bin/python", args: ["-m", "treecomplete", "--stdio"], source: "python" });
});

test("an interpreter without treecomplete falls through to PATH", () => {
  const found = findServer(env({ pythonInterpreter: "/usr/bin/python3", hasModule: () => false, which: (n) => "/usr/local/bin/" + n }));
  assert.deepStrictEqual(found, { command: "/usr/local/bin/treecomplete-ls", args: ["--stdio"], source: "path" });
});

test("nothing found is a clear error", () => {
  assert.throws(() => findServer(env({ pythonInterpreter: "/usr/bin/python3", hasModule: () => false })),
    (error) => error instanceof ServerNotFound && /treecomplete.server.path/.test(error.message));
});
