// create_document through the package's handler, in process, on the bodies
// `examples/create_plans.rs` wrote (bench/create.sh runs both, alternating).
//
//   node_modules/.bin/bun bench/create.mjs DIR [ROUNDS]
//
// The host answers `created` with the canonical plan, as the crate's run
// does; each exchange's response text is read. Appends to DIR/package.tsv
// one line per body and round, as crate.tsv has them: the body's file, its
// name, the mean ns per exchange.
import { appendFileSync, readFileSync } from "node:fs";
import { handler } from "../index.mjs";

const [dir, roundsArg] = process.argv.slice(2);
if (!dir) {
  console.error("usage: bench/create.mjs DIR [ROUNDS]");
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 1);
const bun = typeof Bun !== "undefined";
const now = bun ? () => Bun.nanoseconds() : () => Number(process.hrtime.bigint());

const mcp = handler({
  caller: () => "octocat",
  documents: { list: () => [], read: () => undefined },
  create: {
    create: (_caller, input) => ({
      kind: "created",
      document: { id: "01J00000000000000000000000", title: input.title, brief: input.brief, source: input.plan, revision: 0, url: "/documents/01J00000000000000000000000" },
    }),
  },
});
const HEADERS = { authorization: "Bearer allowed", "content-type": "application/json", accept: "application/json, text/event-stream" };

async function cycle(body) {
  const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: { ...HEADERS, "content-length": String(body.length) }, body });
  const response = await mcp(request);
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return (await response.text()).length;
}

const bodies = new Map(readFileSync(`${dir}/crate.tsv`, "utf8").trim().split("\n").map((line) => line.split("\t").slice(0, 2)));
let table = "";
for (const [file, name] of bodies) {
  const body = readFileSync(file);
  const once = now();
  await cycle(body);
  // Rounds of about 50 ms: a round of a few milliseconds (as the crate's
  // run has) holds a garbage collection or not by chance, and the ratios
  // of such rounds spread from 1.15 to 1.37 for the same plan; 50 ms ones
  // count the collections the exchanges' strings cause.
  const perRound = Math.min(2000, Math.max(3, Math.floor(5e7 / Math.max(1, now() - once))));
  // Untimed first, a round and at least 50 exchanges: a process times a
  // plan once its JavaScript is compiled (the crate's run has no such
  // start; the peer's read bench warms up on 2,000 requests).
  for (let i = 0; i < Math.max(perRound, 50); i++) await cycle(body);
  for (let round = 0; round < ROUNDS; round++) {
    const start = now();
    for (let i = 0; i < perRound; i++) await cycle(body);
    table += `${file}\t${name}\t${((now() - start) / perRound).toFixed(0)}\n`;
  }
}
appendFileSync(`${dir}/package.tsv`, table);
