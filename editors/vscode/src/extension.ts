// The treecomplete VS Code extension: starts the language server over stdio, shows its state in
// the status bar, restarts it when its settings change.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from "vscode-languageclient/node";
import { findServer, ServerNotFound } from "./serverCommand";

// the server's languages (server/languages.py, server/grammars.py), as VS Code names them
const LANGUAGES = [
  "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
  "go", "rust", "java", "c", "cpp", "csharp", "ruby", "php", "kotlin", "lua", "shellscript",
];
const RESTART_ON = ["treecomplete.server.path", "python.defaultInterpreterPath"];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;

function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

function hasModule(python: string): boolean {
  try {
    execFileSync(python, ["-c", "import treecomplete"], { timeout: 15000, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function pythonInterpreter(): Promise<string | undefined> {
  const python = vscode.extensions.getExtension("ms-python.python");
  if (python) {
    try {
      const api = python.isActive ? python.exports : await python.activate();
      const details = api?.settings?.getExecutionDetails?.(vscode.workspace.workspaceFolders?.[0]?.uri);
      const command: string[] | undefined = details?.execCommand;
      if (command && command.length) {
        return command[0];
      }
    } catch (error) {
      output.appendLine(`Python extension: ${error}`);
    }
  }
  const configured = vscode.workspace.getConfiguration("python").get<string>("defaultInterpreterPath");
  return configured && configured !== "python" ? configured : undefined;
}

function settings(): object {
  const config = vscode.workspace.getConfiguration("treecomplete");
  return {
    model: config.get("model", ""),
    device: config.get("device", "auto"),
    maxItems: config.get("maxItems", 50),
    multiToken: config.get("multiToken", true),
    projectIndex: config.get("projectIndex", true),
    libraries: config.get("libraries", true),
    autoImport: config.get("autoImport", true),
    pythonPath: config.get("pythonPath", ""),
    memoryLimit: config.get("memoryLimit", 1024),
  };
}

function show(text: string, tooltip: string): void {
  status.text = text;
  status.tooltip = tooltip;
  status.show();
}

interface ModelStatus {
  language: string;
  state: string;
  model?: string;
  device?: string;
  detail?: string;
}

function onStatus(s: ModelStatus): void {
  if (s.state === "loading") {
    show(`$(sync~spin) treecomplete: loading ${s.model}`, `Loading the ${s.language} model; fallback completions meanwhile`);
  } else if (s.state === "ready") {
    show(`$(check) treecomplete: ${s.model} (${s.device})`, `${s.language}: ${s.model} on ${s.device}`);
  } else if (s.state === "failed") {
    show(`$(warning) treecomplete: fallback`, `${s.language} model ${s.model} not loaded: ${s.detail}`);
  } else if (s.state === "off") {
    show(`treecomplete: fallback`, "Neural completion is off (treecomplete.model = fallback)");
  }
}

async function start(): Promise<void> {
  let found;
  try {
    found = findServer({
      settingPath: vscode.workspace.getConfiguration("treecomplete").get("server.path", ""),
      pythonInterpreter: await pythonInterpreter(),
      exists: fs.existsSync,
      which,
      hasModule,
    });
  } catch (error) {
    const message = error instanceof ServerNotFound ? error.message : String(error);
    output.appendLine(message);
    show("$(error) treecomplete: no server", message);
    vscode.window.showErrorMessage(message);
    return;
  }
  output.appendLine(`starting ${found.command} ${found.args.join(" ")} (from ${found.source})`);
  const serverOptions: ServerOptions = { command: found.command, args: found.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    initializationOptions: { treecomplete: settings() },
    synchronize: { configurationSection: "treecomplete" },
    outputChannel: output,
  };
  client = new LanguageClient("treecomplete", "treecomplete", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.newState === State.Starting) {
      show("$(sync~spin) treecomplete: starting", "Starting the server");
    } else if (event.newState === State.Running) {
      show("$(sync~spin) treecomplete: fallback", "Server running; the model loads with the first completion");
    } else if (event.newState === State.Stopped) {
      show("$(circle-slash) treecomplete: stopped", "The server stopped; see treecomplete: Show Log");
    }
  });
  client.onNotification("treecomplete/status", onStatus);
  await client.start();
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("treecomplete");
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "treecomplete.showLog";
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("treecomplete.restartServer", restart),
    vscode.commands.registerCommand("treecomplete.showLog", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (RESTART_ON.some((section) => event.affectsConfiguration(section))) {
        await restart(); // the command changed
      } else if (event.affectsConfiguration("treecomplete")) {
        // model, device, items: the server takes them live (workspace/didChangeConfiguration)
        await client?.sendNotification("workspace/didChangeConfiguration", { settings: { treecomplete: settings() } });
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
