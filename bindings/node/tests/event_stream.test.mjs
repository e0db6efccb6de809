// An accepted GET is a real event stream: a ReadableStream that sends a
// keep-alive comment at once and then every keepAliveMs, until the request
// is aborted or the stream cancelled; its timer never keeps a process alive.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { KEEP_ALIVE, handler } from "chopin-mcp";
import { memoryHost } from "./support/host.mjs";

const decoder = new TextDecoder();

/**
 * Runs `body` with a referenced timer held: the stream's own timer is
 * unref'd, so without one Node would end a test that only waits on it (a
 * server's listening socket does this in real use).
 */
async function awake(body) {
  const hold = setInterval(() => {}, 1000);
  try {
    await body();
  } finally {
    clearInterval(hold);
  }
}

function get(signal) {
  return new Request("http://127.0.0.1/mcp", { headers: { authorization: "Bearer allowed", accept: "text/event-stream" }, signal });
}

test("a GET stream sends keep-alive comments until the request is aborted", () => awake(async () => {
  const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, keepAliveMs: 20 });
  const abort = new AbortController();
  const response = await mcp(get(abort.signal));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  assert.equal(response.headers.get("cache-control"), "no-cache");
  const reader = response.body.getReader();
  const first = await reader.read();
  assert.equal(decoder.decode(first.value), ": keep-alive\n\n");
  assert.equal(KEEP_ALIVE, ": keep-alive\n\n");
  const second = await reader.read();
  assert.equal(decoder.decode(second.value), ": keep-alive\n\n");
  abort.abort();
  let ended = await reader.read();
  while (!ended.done) ended = await reader.read(); // a comment already queued may come first
  assert.equal(ended.done, true);
}));

/** Records the intervals set and cleared while `body` runs. */
async function watchingTimers(body) {
  const { setInterval: set, clearInterval: clear } = globalThis;
  const timers = { set: [], cleared: [] };
  globalThis.setInterval = (...args) => {
    const timer = set(...args);
    timers.set.push(timer);
    return timer;
  };
  globalThis.clearInterval = (timer) => {
    timers.cleared.push(timer);
    clear(timer);
  };
  try {
    await body(timers);
  } finally {
    Object.assign(globalThis, { setInterval: set, clearInterval: clear });
  }
}

test("cancelling the stream, or aborting the request, clears its timer", () => awake(() => watchingTimers(async (timers) => {
  const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, keepAliveMs: 5 });
  const cancelled = (await mcp(get())).body.getReader();
  await cancelled.read();
  assert.equal(timers.set.length, 1);
  await cancelled.cancel();
  assert.deepEqual(timers.cleared, timers.set);

  const abort = new AbortController();
  const aborted = (await mcp(get(abort.signal))).body.getReader();
  await aborted.read();
  assert.equal(timers.set.length, 2);
  abort.abort();
  assert.equal(timers.cleared.at(-1), timers.set[1]);
})));

test("an open stream's timer does not keep the process alive", () => {
  const script = `
    const { handler } = await import(${JSON.stringify(new URL("../index.mjs", import.meta.url).href)});
    const mcp = handler({ caller: () => "octocat", documents: { list: () => [], read: () => undefined }, keepAliveMs: 50 });
    const response = await mcp(new Request("http://127.0.0.1/mcp", { headers: { authorization: "Bearer allowed", accept: "text/event-stream" } }));
    console.log("open", response.status);
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  assert.equal(child.signal, null, "the process exits by itself");
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /open 200/);
});
