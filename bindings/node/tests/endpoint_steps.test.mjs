// Endpoint, the effect loop for hosts without Web requests: begin, answer
// each step, respond; misuse is a TypeError that leaves the exchange
// answerable; abandon() drops an exchange the host gave up on.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Readable } from "node:stream";
import { test } from "node:test";
import { Endpoint } from "chopin-mcp";
import { DOCUMENT, DRAFT, REPOSITORY, call, memoryHost } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
const RAW = ["Host", "127.0.0.1", "Authorization", "Bearer allowed", "Content-Type", "application/json"];
const bytes = (value) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));

test("a read walks authenticate, body, read and respond", () => {
  const endpoint = new Endpoint();
  const who = { login: "octocat" };
  let step = endpoint.begin("POST", RAW);
  assert.equal(step.kind, "authenticate");
  step = step.answer(who);
  assert.equal(step.kind, "body");
  assert.equal(step.caller, who);
  step = step.finish(bytes(call("read_document", { id: DOCUMENT.id }, 3)));
  assert.equal(step.kind, "read");
  assert.equal(step.id, DOCUMENT.id);
  assert.equal(step.caller, who);
  step = step.answer(DOCUMENT);
  assert.equal(step.kind, "respond");
  assert.equal(step.status, 200);
  assert.equal(step.stream, false);
  assert.deepEqual(step.headers, { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, DOCUMENT);
  assert.equal(endpoint[IN_FLIGHT](), 0);
});

test("list and create steps carry their arguments and take their answers", () => {
  const endpoint = new Endpoint({ create: true });
  let step = endpoint.begin("POST", RAW).answer("octocat").finish(bytes(call("list_documents", { repository: REPOSITORY })));
  assert.equal(step.kind, "list");
  assert.equal(step.repository, REPOSITORY);
  step = step.answer([{ id: "a", title: "A \"quoted\" title" }]);
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { documents: [{ id: "a", title: 'A "quoted" title' }] });

  step = endpoint.begin("POST", RAW).answer("octocat").finish(bytes(call("create_document", DRAFT)));
  assert.equal(step.kind, "create");
  assert.equal(step.input.fingerprint, "76c4bab01ff1132bc2d596f03ef07d21cac77a9722f62482820689eb1d4a8dde");
  step = step.answer({ kind: "created", document: { id: "n", title: DRAFT.title, brief: DRAFT.brief, source: step.input.plan, revision: 0, url: "/documents/n" } });
  assert.equal(JSON.parse(step.body).result.structuredContent.url, "/documents/n");
});

test("push takes chunks until the budget, then the exchange is at a 413", () => {
  const endpoint = new Endpoint({ bodyBudget: 10 });
  const step = endpoint.begin("POST", RAW).answer("octocat");
  assert.equal(step.push(bytes("12345")), true);
  assert.equal(step.push(bytes("678901")), false);
  assert.equal(step.kind, "respond");
  assert.equal(step.status, 413);
  assert.equal(step.body, "request too large");
  assert.equal(endpoint[IN_FLIGHT](), 0);
});

test("readFrom reads a Node readable, a Web stream or an async iterable, and stops at the budget", async () => {
  const body = bytes(call("read_document", { id: DOCUMENT.id }));
  const sources = [
    () => Readable.from([body.subarray(0, 10), body.subarray(10)]),
    () => new Blob([body]).stream(),
    () => (async function* () {
      yield body.subarray(0, 5);
      yield body.subarray(5);
    })(),
  ];
  const endpoint = new Endpoint();
  for (const source of sources) {
    const step = await endpoint.begin("POST", RAW).answer("octocat").readFrom(source());
    assert.equal(step.kind, "read");
    step.answer(undefined);
  }
  let pulled = 0;
  const endless = new Readable({
    read() {
      pulled++;
      this.push(new Uint8Array(1024));
    },
  });
  const small = new Endpoint({ bodyBudget: 4096 });
  const step = await small.begin("POST", RAW).answer("octocat").readFrom(endless);
  assert.equal(step.status, 413);
  assert.ok(pulled < 64, `read ${pulled} chunks of an endless body`);
  assert.equal(endless.destroyed, false, "the source is left as it is (a socket may still take the 413)");
});

test("answering a step it is not at is a TypeError; the exchange stays answerable", () => {
  const endpoint = new Endpoint();
  const step = endpoint.begin("POST", RAW);
  assert.throws(() => step.finish(), /finish\(\) answers a "body" step, but this exchange is at "authenticate"/);
  assert.throws(() => step.id, /at "authenticate"/);
  assert.throws(() => step.status, /at "authenticate"/);
  step.answer("octocat");
  assert.throws(() => step.push("text"), /a chunk is a Uint8Array/);
  step.finish(bytes(call("read_document", { id: DOCUMENT.id })));
  assert.throws(() => step.answer({ id: 1 }), TypeError);
  assert.equal(step.kind, "read");
  assert.equal(step.answer(null).status, 200);
  assert.throws(() => step.answer(DOCUMENT), /nothing to answer/);
});

test("abandon() drops an exchange; so does dispose", () => {
  const endpoint = new Endpoint();
  const steps = [endpoint.begin("POST", RAW), endpoint.begin("POST", RAW).answer("a")];
  assert.equal(endpoint[IN_FLIGHT](), 2);
  steps[0].abandon();
  steps[0].abandon();
  assert.equal(endpoint[IN_FLIGHT](), 1);
  if (typeof Symbol.dispose === "symbol") steps[1][Symbol.dispose]();
  else steps[1].abandon();
  assert.equal(endpoint[IN_FLIGHT](), 0);
  assert.equal(steps[0].kind, "abandoned");
});

test("an exchange dropped unanswered is released once collected", () => {
  // In a process of its own, where collection can be asked for.
  const script = `
    const { Endpoint } = await import(${JSON.stringify(new URL("../index.mjs", import.meta.url).href)});
    const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
    const endpoint = new Endpoint();
    for (let i = 0; i < 100; i++) endpoint.begin("POST", ["Authorization", "Bearer a"]).answer("octocat");
    const held = endpoint.begin("POST", []);
    const before = endpoint[IN_FLIGHT]();
    for (let round = 0; round < 20 && endpoint[IN_FLIGHT]() > 1; round++) {
      typeof Bun === "undefined" ? globalThis.gc() : Bun.gc(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(before, endpoint[IN_FLIGHT](), held.kind);
  `;
  const child = spawnSync(process.execPath, [...(typeof Bun === "undefined" ? ["--expose-gc"] : []), "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), "101 1 authenticate");
});

test("headers come as rawHeaders, a Web Headers or an object; a malformed list is a TypeError", () => {
  const endpoint = new Endpoint();
  for (const headers of [
    ["Accept", "text/event-stream"],
    new Headers({ accept: "text/event-stream" }),
    { accept: "text/event-stream", "x-skipped": undefined },
    { accept: ["text/event-stream"] },
  ]) {
    const step = endpoint.begin("GET", headers).answer("octocat");
    assert.equal(step.status, 200);
    assert.equal(step.stream, true);
    assert.equal(step.body, "");
  }
  assert.equal(endpoint.begin("GET", { accept: "application/json" }).answer("octocat").status, 406);
  assert.throws(() => endpoint.begin("GET", ["accept"]), /names and values alternating/);
  assert.throws(() => endpoint.begin("GET", "accept: x"), TypeError);
  assert.throws(() => endpoint.begin(7, []), TypeError);
});

test("a header list with characters beyond ASCII is read whole, as Latin-1 or as UTF-8", () => {
  // One such character anywhere takes the whole list off the ASCII path;
  // the Accept value beside it must still decide.
  const endpoint = new Endpoint();
  for (const note of ["café", "€ and é"]) {
    const stream = endpoint.begin("GET", ["X-Note", note, "Accept", "text/event-stream"]).answer("octocat");
    assert.equal(stream.status, 200, note);
    assert.equal(stream.stream, true, note);
    const json = endpoint.begin("GET", ["Accept", "application/json", "X-Note", note]).answer("octocat");
    assert.equal(json.status, 406, note);
  }
});
