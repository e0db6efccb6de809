// Large plans and replies: a create or update effect's plan, and a response
// body from 1 KiB on, cross apart from the rest of their outcome (made from
// the endpoint's own bytes, not copied into the outcome first). They arrive
// whole, in any text, through handler() and through Endpoint.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DOCUMENT, DRAFT, call, memoryHost, post } from "./support/host.mjs";

const require = createRequire(import.meta.url);
const native = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);
const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
const RAW = ["Host", "127.0.0.1", "Authorization", "Bearer allowed", "Content-Type", "application/json"];
const bytes = (value) => new TextEncoder().encode(JSON.stringify(value));

/** A plan of about `size` characters, with text beyond Latin-1. */
function bigPlan(size) {
  const paragraph = "Ünïcode 😀 and \"quotes\", a \\ backslash and plain words to fill the line.\n\n";
  return `# Big plan\n\n${paragraph.repeat(Math.ceil(size / paragraph.length))}`;
}

/** A document whose source makes a reply of well over 1 KiB. */
const BIG = { ...DOCUMENT, source: bigPlan(40_000) };

test("a reply from 1 KiB crosses apart: its outcome carries the head alone, and the body call frees the slot", () => {
  const owner = native.endpoint("{}");
  const core = native.endpointId(owner);
  assert.equal(native.startListed(core, 0, "POST", "authorization\0x\0content-type\0application/json\0"), "a");
  const read = native.authenticate(core, 0, 1, undefined, bytes(call("read_document", { id: BIG.id })));
  assert.equal(read, `r${BIG.id}`);
  const out = native.answerRead(core, 0, BIG.id, BIG.title, BIG.source, BIG.revision);
  assert.match(out, /^PH0200\n[^\0]*\0$/);
  assert.equal(native.inFlight(core), 1);
  const reply = JSON.parse(native.body(core, 0));
  assert.deepEqual(reply.result.structuredContent, BIG);
  assert.equal(native.inFlight(core), 0);
  assert.throws(() => native.body(core, 0), /no exchange is waiting in slot 0/);
});

test("a large document is read whole through handler() and Endpoint", async () => {
  const mcp = handler({ caller: () => "octocat", documents: { list: () => [], read: () => BIG } });
  const response = await mcp(post(call("read_document", { id: BIG.id })));
  assert.equal(response.headers.get("content-type"), "application/json");
  const text = await response.text();
  assert.ok(new TextEncoder().encode(text).length > 40_000);
  assert.deepEqual(JSON.parse(text).result.structuredContent, BIG);
  // The same head again (now known by its id), the body apart again.
  assert.deepEqual((await (await mcp(post(call("read_document", { id: BIG.id })))).json()).result.structuredContent, BIG);
  assert.equal(mcp[IN_FLIGHT](), 0);

  const endpoint = new Endpoint();
  for (let round = 0; round < 2; round++) {
    const step = endpoint.begin("POST", RAW).answer("octocat").finish(bytes(call("read_document", { id: BIG.id }))).answer(BIG);
    assert.equal(step.status, 200);
    assert.equal(step.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(step.body).result.structuredContent, BIG);
  }
  assert.equal(endpoint[IN_FLIGHT](), 0);
});

test("a large plan reaches the host whole, and the reply that carries it twice comes back whole", async () => {
  const plan = bigPlan(100_000);
  const host = memoryHost();
  const mcp = handler({ caller: () => "octocat", documents: host.reader, create: host.creator });
  const reply = await (await mcp(post(call("create_document", { ...DRAFT, plan })))).json();
  const [[, , input]] = host.calls;
  assert.equal(input.plan, plan);
  assert.equal(input.title, DRAFT.title);
  assert.equal(reply.result.structuredContent.source, plan);
  assert.equal(JSON.parse(reply.result.content[0].text).source, plan);
  assert.equal(mcp[IN_FLIGHT](), 0);

  const endpoint = new Endpoint({ create: true });
  let step = endpoint.begin("POST", RAW).answer("octocat").finish(bytes(call("create_document", { ...DRAFT, plan })));
  assert.equal(step.kind, "create");
  assert.equal(step.input.plan, plan);
  assert.deepEqual(step.input.brief, DRAFT.brief);
  step = step.answer({ kind: "created", document: { id: "n", title: DRAFT.title, brief: DRAFT.brief, source: step.input.plan, revision: 0, url: "/documents/n" } });
  assert.equal(JSON.parse(step.body).result.structuredContent.source, plan);
  assert.equal(endpoint[IN_FLIGHT](), 0);
});
