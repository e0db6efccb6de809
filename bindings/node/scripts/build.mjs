// npm run build: builds the addon with cargo and puts it beside index.cjs as
// chopin-mcp.<platform>-<arch>.node, where index.cjs loads it.
//
//   npm run build                 # the `release` profile (what to measure and ship)
//   CHOPIN_MCP_PROFILE=dev npm run build   # a debug build, quicker to make
//
// On Linux a release build is linked a second time with the functions of
// link-order.txt laid out together (see `linkInOrder` below).
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** The symbols `library` defines, as `nm` lists them (in its table's order). */
function symbols(library, demangled) {
  const result = spawnSync("nm", ["-p", "--defined-only", ...(demangled ? ["-C"] : []), library], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (result.error || result.status !== 0) return null;
  return result.stdout.split("\n").filter((line) => line !== "").map((line) => line.slice(line.indexOf(" ", line.indexOf(" ") + 1) + 1));
}

/**
 * Links the built addon again, the functions link-order.txt names (those a
 * request runs, hottest first) laid out together: a request's calls run
 * between the engine's own code, which pushes the addon's out of the
 * processor's caches, and fetch its code back from a few pages where they
 * fetched it from all over the library (on Bun, a read through the handler
 * took about 50 ns less in bench/peer.sh). nm gives each name's mangled
 * symbol (the link wants those, hashes and all); lld and gold take the
 * list, and where the linker takes none, or nm is missing, the first link
 * stands. Only the addon's own crate is compiled again.
 */
function linkInOrder(library) {
  const mangled = symbols(library, false);
  const demangled = symbols(library, true);
  if (mangled === null || demangled === null || mangled.length !== demangled.length) {
    console.log("chopin-mcp: no nm here: the addon is linked in the linker's own order");
    return;
  }
  const byName = new Map();
  demangled.forEach((name, i) => byName.set(name, [...(byName.get(name) ?? []), mangled[i]]));
  const wanted = readFileSync(join(here, "link-order.txt"), "utf8").split("\n").filter((line) => line !== "" && !line.startsWith("#"));
  const order = wanted.flatMap((name) => byName.get(name) ?? []);
  const file = join(dirname(library), "chopin-mcp-link-order.txt");
  writeFileSync(file, order.join("\n") + "\n");
  const kept = join(dirname(library), "chopin-mcp-first-link.so");
  copyFileSync(library, kept);
  const args = ["rustc", "--profile", profile, "-p", "chopin-mcp-node", "--lib", "--", "-C", `link-arg=-Wl,--symbol-ordering-file=${file}`, "-C", "link-arg=-Wl,--no-warn-symbol-ordering"];
  const result = spawnSync(cargo, args, { cwd: here, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const failed = result.error || result.status !== 0;
  if (failed) copyFileSync(kept, library);
  rmSync(kept);
  if (failed) {
    console.log("chopin-mcp: this linker takes no symbol order: the addon is linked in its own order");
    return;
  }
  console.log(`chopin-mcp: linked with ${order.length} symbols of ${wanted.length} names in link-order.txt laid out first`);
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
if (profile === "release" && process.platform === "linux") linkInOrder(from);
const to = join(here, `chopin-mcp.${process.platform}-${process.arch}.node`);
// A fresh file, not an overwrite: a running process may have the old one mapped.
rmSync(to, { force: true });
copyFileSync(from, to);
console.log(`chopin-mcp: ${from} -> ${to}`);
