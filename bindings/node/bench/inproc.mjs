// In-process tools/call read_document through the package, and where its
// time goes. Run with Bun (or Node) from bindings/node after `npm run build`:
//
//   node_modules/.bin/bun bench/inproc.mjs [N] [RUNS]
//
// Prints ns per request, median of RUNS runs of N prebuilt requests, for:
//   handler      the package's handler(), body read by the bench as the peer bench does
//   stages       the same loop cut after each step, cumulative (headers in,
//                start, the caller and the body's bytes, authenticate with
//                the body, the read and its answer, Response + text)
//   stand-in     the same Request/Response work in JavaScript alone, every
//                crossing replaced by a constant string: the difference to
//                "stages" at each step is that step's crossing and Rust work
import { createRequire } from "node:module";
import { handler } from "../index.mjs";

const require = createRequire(import.meta.url);
const native = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);
const N = Number(process.argv[2] ?? 20000);
const RUNS = Number(process.argv[3] ?? 7);
const now = typeof Bun !== "undefined" ? () => Bun.nanoseconds() : () => Number(process.hrtime.bigint());
const gc = typeof Bun !== "undefined" ? () => Bun.gc(true) : globalThis.gc ?? (() => {});
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.version}`;

// The peer bench's request and host (../shared/peers/ts-handler: bench.ts, fixture.ts).
const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "read_document", arguments: { id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4" } },
});
const HEADERS = {
  host: "127.0.0.1",
  authorization: "Bearer allowed",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-03-26",
  "content-length": String(Buffer.byteLength(BODY)),
};
const DOCUMENT = { id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4", title: "Release readiness", source: "# Release readiness\n", revision: 4 };
const caller = (request) => (request.headers.get("authorization") === "Bearer allowed" ? "octocat" : undefined);
const documents = {
  async list(_caller, repository) {
    return repository === "githubnext/chopin" ? [{ id: DOCUMENT.id, title: DOCUMENT.title }] : [];
  },
  async read(_caller, id) {
    return id === DOCUMENT.id ? { ...DOCUMENT } : undefined;
  },
};

function requests(n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = new Request("http://127.0.0.1/mcp", { method: "POST", headers: HEADERS, body: BODY });
  return out;
}

function flat(headers) {
  let text = "";
  headers.forEach((value, name) => {
    text += name + "\0" + value + "\0";
  });
  return text;
}

const owner = native.endpoint("{}");
const endpoint = native.endpointId(owner);
const mcp = handler({ caller, documents });

// The loop of index.cjs for this request, cut after `stage` steps.
async function staged(request, stage) {
  const headers = flat(request.headers);
  if (stage === 0) return headers.length;
  let out = native.start(endpoint, 0, request.method, headers);
  if (stage === 1) return native.release(endpoint, 0);
  const who = caller(request);
  const bytes = await request.bytes();
  if (stage === 2) return native.release(endpoint, 0);
  out = native.authenticate(endpoint, 0, who === undefined ? 0 : 1, undefined, bytes);
  if (stage === 3) return native.release(endpoint, 0);
  const document = await documents.read(who, out.slice(1));
  out = native.answerRead(endpoint, 0, document.id, document.title, document.source, document.revision);
  if (stage === 4) return out.length;
  const response = new Response(out.slice(2), INIT);
  return (await response.text()).length;
}

// The same work without the core: each crossing is a constant.
let replyText;
const INIT = { status: 200, headers: new Headers({ "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" }) };
async function standIn(request, stage) {
  const headers = flat(request.headers);
  if (stage === 0) return headers.length;
  let out = headers.length > 0 ? "a" : "";
  if (stage === 1) return out;
  const who = caller(request);
  const bytes = await request.bytes();
  if (stage === 2) return out;
  out = who !== undefined && bytes.length > 0 ? "r" + DOCUMENT.id : "";
  if (stage === 3) return out;
  const document = await documents.read(who, out.slice(1));
  out = document ? replyText : "";
  if (stage === 4) return out.length;
  const response = new Response(out.slice(2), INIT);
  return (await response.text()).length;
}

async function time(run, stage) {
  const results = [];
  await loop(run, stage, requests(Math.max(1, N / 10))); // warm-up
  for (let r = 0; r < RUNS; r++) {
    const batch = requests(N);
    gc();
    results.push(await loop(run, stage, batch));
  }
  results.sort((a, b) => a - b);
  return results[results.length >> 1];
}

async function loop(run, stage, batch) {
  const start = now();
  for (const request of batch) await run(request, stage);
  return (now() - start) / batch.length;
}

async function whole(request) {
  const response = await mcp(request);
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return (await response.text()).length;
}

// The constant reply of the stand-in: the core's own, once.
{
  native.start(endpoint, 0, "POST", flat(requests(1)[0].headers));
  native.authenticate(endpoint, 0, 1, undefined, new TextEncoder().encode(BODY));
  replyText = native.answerRead(endpoint, 0, DOCUMENT.id, DOCUMENT.title, DOCUMENT.source, DOCUMENT.revision);
  if (!replyText.startsWith("H") && !replyText.startsWith("R")) throw new Error(`unexpected ${replyText}`);
  const check = await mcp(requests(1)[0]);
  console.error("check:", check.status, check.headers.get("content-type"), await check.text());
}

const STAGES = ["headers in", "+ start", "+ caller, body bytes", "+ authenticate & body", "+ read, answer", "+ Response, text"];
const handlerNs = await time(whole, 0);
console.log(`inproc handler (${runtime}): median ${handlerNs.toFixed(0)} ns/req  n=${N} runs=${RUNS}`);
console.log("stage                 package  stand-in  difference (ns/req, cumulative)");
for (let stage = 0; stage < STAGES.length; stage++) {
  const core = await time(staged, stage);
  const js = await time(standIn, stage);
  console.log(`${STAGES[stage].padEnd(20)} ${core.toFixed(0).padStart(8)} ${js.toFixed(0).padStart(9)} ${(core - js).toFixed(0).padStart(11)}`);
}
