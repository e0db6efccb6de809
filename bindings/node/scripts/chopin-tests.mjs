// Runs Chopin's own MCP test files (apps/server/src/mcp/*.test.ts of
// githubnext/chopin, from a folder given as the first argument; they are
// not part of this repository) against this package, unmodified, through
// import shims: `../mcp` and `./update` become this package, and
// `@chopin/dialect`'s `limits` the dialect's documented limits. Chopin's
// `TOOLS` is every tool it defines; this package's is a read-only
// handler's, so `../mcp`'s TOOLS is mapped onto `tools()` of a host with
// every capability the package takes (`--plain-tools` keeps the package's). Not run in
// CI (the test files come from outside).
//
//   node scripts/chopin-tests.mjs /path/to/chopin/apps/server/src/mcp [file.test.ts ...]
//
// The files are copied into a temporary tree shaped like Chopin's, and Bun
// runs them there; its output (and exit status) are this script's.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const plainTools = args.includes("--plain-tools");
const [from, ...only] = args.filter((arg) => arg !== "--plain-tools");
if (!from) {
  console.error("usage: node scripts/chopin-tests.mjs <folder of Chopin's mcp/*.test.ts> [file.test.ts ...]");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const files = only.length > 0 ? only : readdirSync(from).filter((name) => name.endsWith(".test.ts")).sort();

const root = mkdtempSync(join(tmpdir(), "chopin-tests-"));
const mcp = join(root, "apps", "server", "src", "mcp");
mkdirSync(mcp, { recursive: true });
for (const name of files) copyFileSync(join(from, name), join(mcp, name));

const entry = JSON.stringify(join(pkg, "index.mjs"));
// `../mcp`: the handler module.
const everyTool = `import { tools } from ${entry};
const every: Record<string, boolean> = {};
// Archive and restore come together.
for (const names of [["create"], ["update"], ["rename"], ["archive", "restore"], ["invoke"], ["upload"]]) {
  const more = Object.fromEntries(names.map((name) => [name, true]));
  try {
    tools({ ...every, ...more });
    Object.assign(every, more);
  } catch {
    // An option this version of the package does not take.
  }
}
export const TOOLS = tools(every);
`;
writeFileSync(
  join(root, "apps", "server", "src", "mcp.ts"),
  `export * from ${entry};\n${plainTools ? "" : everyTool}`,
);
// `./update`: the update module's prepareUpdate.
writeFileSync(join(mcp, "update.ts"), `export { prepareUpdate } from ${entry};\n`);
// `@chopin/dialect`: the limits the tests read (DIALECT.md's MAX_SOURCE_BYTES).
const dialect = join(root, "node_modules", "@chopin", "dialect");
mkdirSync(dialect, { recursive: true });
writeFileSync(join(dialect, "package.json"), JSON.stringify({ name: "@chopin/dialect", type: "module", main: "index.js" }));
writeFileSync(join(dialect, "index.js"), "export const limits = Object.freeze({ MAX_SOURCE_BYTES: 262_144 });\n");

const bun = join(pkg, "node_modules", ".bin", "bun");
const run = spawnSync(bun, ["test", ...files.map((name) => `./apps/server/src/mcp/${name}`)], { cwd: root, stdio: "inherit" });
rmSync(root, { recursive: true, force: true });
process.exit(run.status ?? 1);
