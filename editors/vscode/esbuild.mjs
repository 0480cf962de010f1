// Bundles the extension (vscode stays external) and, for the unit tests, the server-finding logic.
import * as esbuild from "esbuild";

const common = { bundle: true, platform: "node", format: "cjs", target: "node18", minify: true };
await esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", external: ["vscode"] });
await esbuild.build({ ...common, entryPoints: ["src/serverCommand.ts"], outfile: "dist/serverCommand.js" });
