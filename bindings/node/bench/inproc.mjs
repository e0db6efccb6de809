// In-process tools/call read_document through the package, and where its
// time goes. From bindings/node, after `npm run build`:
//
//   node_modules/.bin/bun bench/inproc.mjs [N] [ROUNDS]   # Bun: handler(), Request in, Response out
//   node bench/inproc.mjs [N] [ROUNDS]                   # Node: the same, and Endpoint with no Web objects
//
// Each case runs N prebuilt requests per round; the rounds go round-robin
// over the cases (a machine's load drifts), and each case's median over
// the rounds is printed, in ns per request:
//
//   handler         handler(): Request in, the response's text read
//   stage k         the handler's own steps done by hand, cut after step k
//                   (cumulative): 1 the header values the endpoint reads
//                   (Headers.get), 2 + the caller, 3 + the body's bytes,
//                   4 + the crossing that starts and authenticates with the
//                   body (the read effect comes back), 5 + the host's read
//                   and the crossing that answers it, 6 + the Response and
//                   its text
//   stage 4 twice   stage 4 with its crossing made a second time at once
//                   (released, then again): the gap to stage 4 is what the
//                   same call costs when it comes right after itself, not
//                   after the request's JavaScript
//   stand-in        stage 6's JavaScript alone, each crossing replaced by the
//                   string it returns: the gap to stage 6 is the crossings
//                   and the endpoint's Rust work
//   js reply        stage 6 with the read answered in JavaScript instead of
//                   by the second crossing: the document through
//                   JSON.stringify into this request's frame (hard-wired;
//                   the host's document is not checked), the slot released:
//                   what a reply encoder in JavaScript could save at most.
//                   Its reply is checked once against the package's.
//   endpoint        (Node) Endpoint: rawHeaders and a Buffer in, status,
//                   headers and body out; no Request, Headers or Response
//
// The request and the host are ../shared/peers/ts-handler's (bench.ts,
// fixture.ts), so the numbers sit beside that bench's for the plain
// TypeScript handler.
import { createRequire } from "node:module";
import { Endpoint, handler } from "../index.mjs";

const require = createRequire(import.meta.url);
const native = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);
const N = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 15);
const bun = typeof Bun !== "undefined";
const now = bun ? () => Bun.nanoseconds() : () => Number(process.hrtime.bigint());
const gc = bun ? () => Bun.gc(true) : globalThis.gc ?? (() => {});
const runtime = bun ? `bun ${Bun.version}` : `node ${process.version}`;

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
const ID = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
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

const mcp = handler({ caller, documents });
const owner = native.endpoint("{}");
const core = native.endpointId(owner);
const [N0, N1, N2, N3, N4, N5, N6, N7, N8, N9, N10] = native.namedHeaders();
const INIT = {
  status: 200,
  headers: new Headers({ "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" }),
};
// As the handler reads a declared body of up to 16 KiB, and passes it: in
// the addon's scratch buffer, by its length (lib/drive.js).
const bytesOf = (request) => request.bytes();
const MEMORY = native.scratch();
const SCRATCH = new Uint8Array(MEMORY, 0, MEMORY.byteLength - 8);
// The register where an outcome that came apart has its tag (the handler
// asks for it: a read's id and a known head's body alone).
const REGISTER = new Uint8Array(MEMORY, MEMORY.byteLength - 8, 2);

// The handler's steps by hand (a POST without an Origin, on a handler
// without a host allowlist: its caller is found first, and one call starts
// and authenticates), cut after `stage`; at JS_REPLY, the host's read is
// answered in JavaScript instead of by the second crossing.
async function staged(request, stage) {
  const h = request.headers;
  const v = [h.get(N0), h.get(N3), h.get(N4), h.get(N5), h.get(N6), h.get(N7), h.get(N8), h.get(N9), h.get(N10)];
  if (stage === 1) return v.length;
  const who = caller(request);
  if (stage === 2) return who;
  const bytes = await bytesOf(request);
  if (stage === 3) return bytes.byteLength;
  let out = crossRun(request.method, v, bytes);
  if (stage === 4) return native.release(core, 0);
  if (stage === 4.5) {
    native.release(core, 0);
    crossRun(request.method, v, bytes);
    return native.release(core, 0);
  }
  const id = REGISTER[0] === 114 ? out : out.slice(1);
  const document = await documents.read(who, id);
  if (stage === JS_REPLY) {
    native.release(core, 0);
    return (await new Response(replyOf(document), INIT).text()).length;
  }
  // As the handler answers: the id asked for, given back, as a bit (16).
  const own = document.id === id;
  out = native.answerRead(core, 0, own ? null : document.id, document.title, document.source, document.revision, undefined, undefined, undefined, undefined, (own ? 16 : 0) | 32);
  if (stage === 5) return out.length;
  return (await new Response(REGISTER[0] === 82 ? out : out.slice(2), INIT).text()).length;
}

// `run` as the handler makes it (lib/drive.js) for the values of `staged`
// (N0, then N3 to N10): the method as a bit, and each value equal to the
// one the last call passed for its header as a bit instead of a string.
const seen = new Array(11).fill(undefined);
function bitOf(i, value) {
  if (value === null) return 0;
  if (value === seen[i]) return 1 << (16 + i);
  seen[i] = value;
  return 1 << i;
}
function crossRun(method, v, bytes) {
  const present =
    (method === "POST" ? 1 << 27 : 1 << 28) | bitOf(0, v[0]) | bitOf(3, v[1]) | bitOf(4, v[2]) | bitOf(5, v[3]) |
    bitOf(6, v[4]) | bitOf(7, v[5]) | bitOf(8, v[6]) | bitOf(9, v[7]) | bitOf(10, v[8]);
  return native.run(core, 0, null, present & 1 ? v[0] : null, null, null,
    present & 8 ? v[1] : null, present & 16 ? v[2] : null, present & 32 ? v[3] : null, present & 64 ? v[4] : null,
    present & 128 ? v[5] : null, present & 256 ? v[6] : null, present & 512 ? v[7] : null, present & 1024 ? v[8] : null,
    1, undefined, (SCRATCH.set(bytes), undefined), present | (1 << 29), bytes.length);
}

// The read's reply written in JavaScript (the JS reply case).
const JS_REPLY = "js";
function replyOf(document) {
  const { id, title, source, revision } = document;
  const json = JSON.stringify({ id, title, source, revision });
  return `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}}`;
}

// Stage 6's JavaScript, each crossing a constant (as the handler gets
// them, apart: the read's id, the reply's body).
let REPLY;
async function standIn(request) {
  const h = request.headers;
  const v = [h.get(N0), h.get(N3), h.get(N4), h.get(N5), h.get(N6), h.get(N7), h.get(N8), h.get(N9), h.get(N10)];
  const who = caller(request);
  const bytes = await bytesOf(request);
  const id = v.length > 0 && who !== undefined && bytes.length > 0 ? ID : "";
  const document = await documents.read(who, id);
  const out = document ? REPLY : "";
  return (await new Response(out, INIT).text()).length;
}

async function whole(request) {
  const response = await mcp(request);
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return (await response.text()).length;
}

// Endpoint, as a node:http host drives it (examples/node-http.mjs).
const endpoint = new Endpoint();
const RAW = Object.entries(HEADERS).flat();
const BUFFER = Buffer.from(BODY);
async function viaEndpoint() {
  let step = endpoint.begin("POST", RAW);
  while (step.kind !== "respond") {
    switch (step.kind) {
      case "authenticate":
        step = step.answer("octocat");
        break;
      case "body":
        step = step.finish(BUFFER);
        break;
      case "read":
        step = step.answer(await documents.read(step.caller, step.id));
        break;
      default:
        throw new Error(step.kind);
    }
  }
  if (step.status !== 200) throw new Error(`status ${step.status}`);
  return step.body.length + Object.keys(step.headers).length;
}

const requests = (n) => Array.from({ length: n }, () => new Request("http://127.0.0.1/mcp", { method: "POST", headers: HEADERS, body: BODY }));
const cases = [
  ["handler", (r) => whole(r)],
  ...[1, 2, 3, 4, 5, 6].map((stage) => [`stage ${stage}`, (r) => staged(r, stage)]),
  ["stage 4 twice", (r) => staged(r, 4.5)],
  ["stand-in", (r) => standIn(r)],
  ["js reply", (r) => staged(r, JS_REPLY)],
];
if (!bun) cases.push(["endpoint", () => viaEndpoint()]);

{
  // The staged endpoint's first reply names its head; the later ones come
  // apart, as the handler's do.
  native.startListed(core, 0, "POST", "authorization\0x\0content-type\0application/json\0");
  native.authenticate(core, 0, 1, undefined, new TextEncoder().encode(BODY));
  native.answerRead(core, 0, DOCUMENT.id, DOCUMENT.title, DOCUMENT.source, DOCUMENT.revision);
  const check = await mcp(requests(1)[0]);
  const text = await check.text();
  REPLY = text;
  console.error("check:", check.status, check.headers.get("content-type"), text);
  if (replyOf(DOCUMENT) !== text) throw new Error("js reply: not the package's reply");
}

const results = new Map();
for (let round = 0; round < ROUNDS + 2; round++) {
  for (const [name, run] of cases) {
    const batch = requests(N);
    gc();
    const start = now();
    for (const request of batch) await run(request);
    const ns = (now() - start) / N;
    if (round >= 2) results.set(name, [...(results.get(name) ?? []), ns]); // two warm-up rounds
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`inproc read_document (${runtime}), n=${N} per round, median of ${ROUNDS} rounds, ns/req:`);
for (const [name, xs] of results) console.log(`  ${name.padEnd(13)} ${median(xs).toFixed(0).padStart(7)}`);
