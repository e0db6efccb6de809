// A read's two crossings alone — `run` (start and authenticate with the
// body: the read effect comes back) then `answerRead` (the reply comes
// back) — in a tight loop, no Request or Response, for several builds of
// the addon loaded side by side in one Bun process, their rounds
// interleaved so that a machine's load falls on each alike. From
// bindings/node:
//
//   cp chopin-mcp.linux-x64.node /tmp/after.node    # each build a file of its own
//   node_modules/.bin/bun bench/crossing.mjs before=/tmp/before.node after=/tmp/after.node
//
// Prints per build the fastest round, the first quartile and the median,
// in ns per run + answerRead (ROUNDS=40 rounds of 20000 by default). At
// most three builds: each copy's allocator takes static TLS, and a fourth
// does not load. A build older than `present` ignores that argument.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const builds = process.argv.slice(2).map((pair) => pair.split("="));
if (builds.length === 0) throw new Error("usage: bun bench/crossing.mjs NAME=/path/to/addon.node ...");
const N = 20_000;
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const ID = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const BODY = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_document", arguments: { id: ID } } }),
).buffer;
const LENGTH = String(BODY.byteLength);
const DOCUMENT = { id: ID, title: "Release readiness", source: "# Release readiness\n", revision: 4 };
// The handler's values for the peer's request: N3 to N7 given (authorization,
// mcp-protocol-version, accept, content-type, content-length). Each call
// passes them all as strings, and the method as one too, so that builds from
// before remembered values take the calls alike; the handler passes the
// values as strings only when they differ from the last request's (its
// costliest `run`), and the method as a bit.
const PRESENT = 8 | 16 | 32 | 64 | 128;

const loops = builds.map(([name, path]) => {
  const native = require(path);
  const core = native.endpointId(native.endpoint("{}"));
  const read = () =>
    native.run(core, 0, "POST", null, null, null, "Bearer allowed", "2025-03-26", "application/json, text/event-stream", "application/json", LENGTH, null, null, null, 1, undefined, BODY, PRESENT);
  const answer = (id) => native.answerRead(core, 0, id, DOCUMENT.title, DOCUMENT.source, DOCUMENT.revision, undefined, undefined, undefined, undefined, 0);
  const first = read();
  if (first !== `r${ID}`) throw new Error(`${name}: run gave ${JSON.stringify(first)}`);
  if (!answer(first.slice(1)).includes('"revision":4')) throw new Error(`${name}: answerRead gave no document`);
  return [
    name,
    () => {
      let total = 0;
      for (let i = 0; i < N; i++) total += answer(read().slice(1)).length;
      return total;
    },
  ];
});

const results = new Map();
for (let round = 0; round < ROUNDS + 2; round++) {
  for (const [name, loop] of loops) {
    const start = Bun.nanoseconds();
    loop();
    const ns = (Bun.nanoseconds() - start) / N;
    if (round >= 2) results.set(name, [...(results.get(name) ?? []), ns]); // two warm-up rounds
  }
}
console.log(`run + answerRead (bun ${Bun.version}), ${ROUNDS} rounds of ${N}, ns per pair:`);
for (const [name, xs] of results) {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (i) => sorted[i].toFixed(0);
  console.log(`  ${name.padEnd(10)} fastest ${at(0)}  q1 ${at(sorted.length >> 2)}  median ${at(sorted.length >> 1)}`);
}
