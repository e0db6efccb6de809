// A handler passes a header value equal to the one its last request passed
// for that header as a bit, not a string (the addon remembers the last
// value of each), and the method as a bit; the read's own id goes back the
// same way. Whatever order values come in, each request is answered by its
// own: as a fresh handler answers it alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler, scoped } from "chopin-mcp";
import { DOCUMENT, call, memoryHost } from "./support/host.mjs";

const READ = JSON.stringify(call("read_document", { id: DOCUMENT.id }, 3));
const BASE = {
  authorization: "Bearer allowed",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-03-26",
  "content-length": String(READ.length),
};

/** A request with BASE's headers but `changes` (a null one left out). */
function request(changes = {}, method = "POST") {
  const headers = { ...BASE, ...changes };
  for (const name of Object.keys(headers)) if (headers[name] === null) delete headers[name];
  if (method !== "POST") delete headers["content-length"];
  return new Request("http://127.0.0.1/mcp", { method, headers, body: method === "POST" ? READ : undefined });
}

function options(host) {
  return { caller: (r) => host.callerOf(r.headers.get("authorization")), documents: host.reader };
}

/** Status, the headers and the body (an event stream's closed unread). */
async function seen(response) {
  const headers = [...response.headers].filter(([name]) => name !== "date");
  const stream = response.headers.get("content-type") === "text/event-stream";
  if (stream) await response.body.cancel();
  return { status: response.status, headers, body: stream ? "(stream)" : await response.text() };
}

// Each a request's changes to BASE, several repeating in a row or after
// others: every value the endpoint reads comes again after another.
const SEQUENCE = [
  {},
  {},
  { accept: "text/html" },
  { accept: "text/html" },
  {},
  { accept: null },
  { accept: "text/html" },
  { "mcp-protocol-version": "1999-01-01" },
  { "mcp-protocol-version": "1999-01-01" },
  {},
  { "content-type": "text/plain" },
  { "content-type": "text/plain" },
  { "content-type": "text/plain", accept: "text/html" },
  { authorization: "Bearer nobody" },
  { authorization: "Bearer nobody" },
  {},
  { "content-length": "1" },
  { "content-length": "1" },
  {},
  { "mcp-session-id": "session-1" },
  { "mcp-session-id": "session-1" },
  { "mcp-method": "tools/call", "mcp-name": "read_document", "mcp-protocol-version": "2026-07-28" },
  { "mcp-method": "tools/call", "mcp-name": "read_document", "mcp-protocol-version": "2026-07-28" },
  { "mcp-method": "tools/list", "mcp-name": "read_document", "mcp-protocol-version": "2026-07-28" },
  {},
];

test("each request is answered by its own header values, however they repeat or change", async () => {
  const shared = handler(options(memoryHost()));
  const statuses = new Set();
  for (const [index, changes] of SEQUENCE.entries()) {
    const alone = await seen(await handler(options(memoryHost()))(request(changes)));
    const after = await seen(await shared(request(changes)));
    assert.deepEqual(after, alone, `request ${index}: ${JSON.stringify(changes)}`);
    statuses.add(alone.status);
  }
  // The sequence reaches refusals of several headers, not one answer.
  assert.ok(statuses.has(200) && statuses.has(406) && statuses.has(400) && statuses.has(415) && statuses.has(401), [...statuses].join(" "));
});

test("a GET after POSTs, and a POST after a GET, are answered as alone", async () => {
  const shared = handler({ ...options(memoryHost()), keepAliveMs: 60_000 });
  for (const [changes, method] of [
    [{}, "POST"],
    [{ accept: "text/event-stream" }, "GET"],
    [{ accept: "text/event-stream" }, "GET"],
    [{ accept: "text/event-stream" }, "POST"],
    [{}, "POST"],
    [{ accept: "application/json" }, "GET"],
  ]) {
    const fresh = await handler({ ...options(memoryHost()), keepAliveMs: 60_000 })(request(changes, method));
    const after = await shared(request(changes, method));
    assert.deepEqual(await seen(after), await seen(fresh), `${method} ${JSON.stringify(changes)}`);
  }
});

test("after a call the addon refused, the next requests are answered by their own values", async () => {
  // A scoped caller whose scopes were changed after scoped() checked them:
  // the addon refuses the call (a TypeError) after the handler had taken
  // note of the request's values, and before the addon could.
  let broken = false;
  const caller = (r) => {
    if (!broken) return r.headers.get("authorization") === "Bearer allowed" ? "octocat" : undefined;
    const answer = scoped("octocat", ["mcp"]);
    answer.scopes = [7];
    return answer;
  };
  const shared = handler({ caller, documents: memoryHost().reader });
  assert.equal((await shared(request({ accept: "text/html" }))).status, 406);
  broken = true;
  await assert.rejects(shared(request()), TypeError);
  broken = false;
  // The handler took note of this Accept for the refused request; the
  // addon never read it. Had the handler kept its note, this request's
  // Accept would cross as "the same again" and be read as text/html.
  for (const changes of [{}, {}, { accept: "text/html" }, {}]) {
    const alone = await seen(await handler(options(memoryHost()))(request(changes)));
    assert.deepEqual(await seen(await shared(request(changes))), alone, JSON.stringify(changes));
  }
});

test("a document read under another id is answered with the id the host gave", async () => {
  const host = memoryHost();
  const reader = {
    list: host.reader.list,
    async read(caller, id) {
      const document = await host.reader.read(caller, id);
      return { ...document, id: `${id}-moved` };
    },
  };
  const mcp = handler({ caller: () => "octocat", documents: reader });
  const first = await (await mcp(request())).json();
  assert.equal(first.result.structuredContent.id, `${DOCUMENT.id}-moved`);
  // The read's own id, given back, crosses as a bit: still the id answered.
  const own = await (await handler(options(host))(request())).json();
  assert.equal(own.result.structuredContent.id, DOCUMENT.id);
  assert.equal(JSON.parse(own.result.content[0].text).id, DOCUMENT.id);
});
