// The body budget as the crate keeps it: a declared length over the budget
// is refused unread; a body without one is pushed chunk by chunk, gets its
// 413 at the chunk that crosses the budget, and the rest is never read (the
// reader is cancelled); where the chunks fall never changes the answer. A
// body read whole is each request's own, short after long, small (it
// crosses in a buffer the handler reuses) or large.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";
import { DOCUMENT, call, memoryHost } from "./support/host.mjs";

const HEADERS = { authorization: "Bearer allowed", "content-type": "application/json" };

/** A pull-based body of `chunks`, recording what was pulled and whether it was cancelled. */
function source(chunks) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream({
    pull(controller) {
      if (seen.pulled === chunks.length) {
        controller.close();
        return;
      }
      controller.enqueue(chunks[seen.pulled++]);
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function mcpOf(host, extra = {}) {
  return handler({ caller: () => "octocat", documents: host.reader, ...extra });
}

function request(body, headers = {}) {
  return new Request("http://127.0.0.1/mcp", { method: "POST", headers: { ...HEADERS, ...headers }, body, duplex: "half" });
}

test("a declared length over the budget is refused unread", async () => {
  const { stream, seen } = source([new Uint8Array(10)]);
  const response = await mcpOf(memoryHost())(request(stream, { "content-length": "65537" }));
  assert.equal(response.status, 413);
  assert.equal(await response.text(), "request too large");
  assert.equal(seen.pulled, 0);
});

test("a streamed body gets its 413 at the crossing chunk; the rest is never read", async () => {
  const chunks = [new Uint8Array(32_768), new Uint8Array(32_767), new Uint8Array(2), new Uint8Array(5)];
  const { stream, seen } = source(chunks);
  const response = await mcpOf(memoryHost())(request(stream));
  assert.equal(response.status, 413);
  assert.equal(await response.text(), "request too large");
  assert.equal(seen.pulled, 3, "the fourth chunk is never pulled");
  assert.equal(seen.cancelled, true, "the reader is cancelled");
});

test("a body exactly at the budget is taken", async () => {
  const host = memoryHost();
  const head = JSON.stringify(call("read_document", { id: DOCUMENT.id })).slice(0, -1);
  const body = new TextEncoder().encode(`${head},"pad":"${"x".repeat(65_536 - head.length - 10)}"}`);
  assert.equal(body.length, 65_536);
  const halves = [body.subarray(0, 40_000), body.subarray(40_000)];
  const response = await mcpOf(host)(request(source(halves).stream));
  assert.equal(response.status, 200);
  assert.equal(host.calls.length, 1);
});

test("where the chunks fall never changes the answer", async () => {
  const whole = new TextEncoder().encode(JSON.stringify(call("read_document", { id: DOCUMENT.id }, 7)));
  const expected = await (await mcpOf(memoryHost())(request(whole))).text();
  for (const size of [1, 2, 3, 7, 64, whole.length]) {
    const chunks = [];
    for (let at = 0; at < whole.length; at += size) chunks.push(whole.slice(at, at + size));
    const response = await mcpOf(memoryHost())(request(source(chunks).stream));
    assert.equal(await response.text(), expected, `chunks of ${size}`);
  }
});

test("a declared length within the budget is read whole", async () => {
  const host = memoryHost();
  const body = JSON.stringify(call("read_document", { id: DOCUMENT.id }));
  const response = await mcpOf(host)(request(body, { "content-length": String(body.length) }));
  assert.equal(response.status, 200);
  assert.deepEqual(host.calls, [["read", "octocat", DOCUMENT.id]]);
});

test("a GET's body, and a refused request's, is never read", async () => {
  const host = memoryHost();
  const refused = source([new TextEncoder().encode("{}")]);
  const mcp = handler({ caller: () => undefined, documents: host.reader });
  assert.equal((await mcp(request(refused.stream))).status, 401);
  assert.equal(refused.seen.pulled, 0);
});

test("bodies read whole, short after long and small after large, are each read alone", async () => {
  /** A read of the document whose body is padded to about `size` bytes. */
  const padded = (size, id) => {
    const head = JSON.stringify(call("read_document", { id: DOCUMENT.id }, id)).slice(0, -1);
    return size <= head.length ? `${head}}` : `${head},"pad":"${"x".repeat(size - head.length - 10)}"}`;
  };
  for (const origin of [undefined, "https://app.example"]) {
    const headers = origin === undefined ? {} : { origin };
    const options = { allowedOrigins: ["https://app.example"] };
    const shared = mcpOf(memoryHost(), options);
    for (const [at, size] of [40_000, 20_000, 16_384, 16_000, 3_000, 100, 0, 30_000, 0].entries()) {
      const body = padded(size, at);
      const fresh = await (await mcpOf(memoryHost(), options)(request(body, { ...headers, "content-length": String(body.length) }))).text();
      const response = await shared(request(body, { ...headers, "content-length": String(body.length) }));
      assert.equal(response.status, 200, `${size} bytes`);
      const text = await response.text();
      assert.equal(text, fresh, `${size} bytes`);
      assert.equal(JSON.parse(text).id, at);
    }
  }
});
