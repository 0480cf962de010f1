// Where the language server is: the setting treecomplete.server.path, else the Python
// interpreter the Python extension uses (with `-m treecomplete`, if treecomplete is installed
// there), else `treecomplete-ls` on PATH. No vscode import: unit-tested under plain Node.
import * as os from "os";
import * as path from "path";

export interface Found {
  command: string;
  args: string[];
  source: "setting" | "python" | "path";
}

export interface Environment {
  settingPath: string; // treecomplete.server.path, "" when unset
  pythonInterpreter?: string; // the Python extension's interpreter, if any
  exists(file: string): boolean;
  which(name: string): string | undefined; // a command on PATH
  hasModule(python: string): boolean; // whether `python -c "import treecomplete"` succeeds
}

export class ServerNotFound extends Error {}

export function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
}

export function findServer(env: Environment): Found {
  const setting = env.settingPath.trim();
  if (setting) {
    const file = expandHome(setting);
    if (!env.exists(file)) {
      throw new ServerNotFound(`treecomplete.server.path: ${file} does not exist`);
    }
    // an interpreter runs the module; anything else is the server executable itself
    if (/^python(\d+(\.\d+)?)?(\.exe)?$/i.test(path.basename(file))) {
      return { command: file, args: ["-m", "treecomplete", "--stdio"], source: "setting" };
    }
    return { command: file, args: ["--stdio"], source: "setting" };
  }
  const python = env.pythonInterpreter;
  if (python && env.exists(python) && env.hasModule(python)) {
    return { command: python, args: ["-m", "treecomplete", "--stdio"], source: "python" };
  }
  const onPath = env.which("treecomplete-ls");
  if (onPath) {
    return { command: onPath, args: ["--stdio"], source: "path" };
  }
  throw new ServerNotFound(
    "treecomplete-ls was not found: install treecomplete (pip install treecomplete) in the selected " +
      "Python interpreter or on PATH, or set treecomplete.server.path",
  );
}
