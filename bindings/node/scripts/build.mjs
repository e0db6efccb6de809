// npm run build: builds the addon with cargo and puts it beside index.cjs as
// chopin-mcp.<platform>-<arch>.node, where index.cjs loads it.
//
//   npm run build                 # the `release` profile (what to measure and ship)
//   CHOPIN_MCP_PROFILE=dev npm run build   # a debug build, quicker to make
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const profile = process.env.CHOPIN_MCP_PROFILE ?? "release";
const cargo = process.env.CARGO ?? "cargo";

function run(args) {
  const result = spawnSync(cargo, args, { cwd: here, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
  return result.stdout;
}

run(["build", "--profile", profile, "-p", "chopin-mcp-node", "--lib"]);
const { target_directory: target } = JSON.parse(run(["metadata", "--format-version", "1", "--no-deps"]));
const built = {
  linux: "libchopin_mcp_node.so",
  darwin: "libchopin_mcp_node.dylib",
  win32: "chopin_mcp_node.dll",
}[process.platform];
if (!built) throw new Error(`chopin-mcp: no addon build for ${process.platform}`);
const from = join(target, profile === "dev" ? "debug" : profile, built);
const to = join(here, `chopin-mcp.${process.platform}-${process.arch}.node`);
// A fresh file, not an overwrite: a running process may have the old one mapped.
rmSync(to, { force: true });
copyFileSync(from, to);
console.log(`chopin-mcp: ${from} -> ${to}`);
