// Every function of the addon, called with arguments of every wrong kind,
// throws a JavaScript error and leaves the process running: none panics
// into an abort, none dereferences what it was handed.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const native = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);

const owner = native.endpoint("{}");
const core = native.endpointId(owner);
const WRONG = [undefined, null, -1, 2 ** 32, 1.5, NaN, "", "x".repeat(5000), {}, [], [1, 2], new Uint8Array(3), new ArrayBuffer(3), new SharedArrayBuffer(3), Symbol("s"), () => 1, 10n, owner];

test("the addon exports the functions index.cjs uses, and no other", () => {
  assert.deepEqual(Object.keys(native).sort(), [
    "answerAbsent", "answerArchive", "answerCreate", "answerImage", "answerImplementation", "answerInvoke", "answerList",
    "answerListForbidden", "answerRead", "answerRename", "answerRestore", "answerUpdate", "answerUpload", "authenticate", "body",
    "budget", "documentAnswer", "documentAuthenticate", "documentStart", "endpoint", "endpointId", "finish", "imageAuthenticate",
    "imageBody", "imageBytes", "imageStart", "implementationRule", "inFlight", "keepAlive", "metadata", "namedHeaders", "plan",
    "prepareUpdate", "push", "release", "run", "scratch", "start", "startListed", "tools",
  ]);
});

test("each function with wrong arguments throws, and the endpoint still works", () => {
  let calls = 0;
  for (const name of Object.keys(native)) {
    if (name === "keepAlive" || name === "namedHeaders") continue;
    for (const first of [core, ...WRONG]) {
      for (const second of WRONG) {
        calls++;
        try {
          native[name](first, second, second, second, second, second);
        } catch (error) {
          assert.ok(error instanceof Error, `${name}: ${error}`);
        }
      }
    }
  }
  assert.ok(calls > 200);
  // Out-of-order steps on a real slot: misuse errors, no state lost.
  assert.throws(() => native.finish(core, 0), /no exchange is waiting in slot 0/);
  assert.equal(native.startListed(core, 0, "POST", "authorization\0x\0"), "a");
  assert.throws(() => native.answerRead(core, 0, "i", "t", "s", 1), /waits for the authenticate answer, not read/);
  assert.throws(() => native.authenticate(core, 0, 9), /not an authentication verdict/);
  assert.throws(() => native.answerList(core, 1, "[]"), /no exchange/);
  assert.throws(() => native.answerUpdate(core, 0, 9), /9 is not an update answer/);
  assert.throws(() => native.answerInvoke(core, 0, 8), /8 is not a planner answer/);
  assert.throws(() => native.answerRename(core, 0, 5), /5 is not a rename, archive or restore answer/);
  assert.throws(() => native.answerArchive(core, 0, 0), /waits for the authenticate answer, not archive/);
  assert.equal(native.authenticate(core, 0, 1), "b");
  assert.throws(() => native.push(core, 0, "a string"), TypeError);
  assert.throws(() => native.push(core, 0, new Uint16Array(2)), TypeError);
  assert.equal(native.push(core, 0, new TextEncoder().encode('{"jsonrpc":"2.0",').buffer), "b");
  assert.ok(native.finish(core, 0, new TextEncoder().encode('"id":1,"method":"ping"}')).startsWith("H"));
  assert.throws(() => native.startListed(core, 1000, "POST", ""), /slot 1000 is past the next one/);
  // With a length, the body is the first bytes of the thread's scratch
  // buffer (the handler's: an earlier body's bytes follow them), whatever
  // the body argument; a length past the buffer is a TypeError, and the
  // exchange still waits for its answer.
  const ping = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  // 16 KiB for a body, and an 8-byte register after it.
  const scratch = new Uint8Array(native.scratch(), 0, 16 * 1024);
  assert.equal(native.scratch().byteLength, 16 * 1024 + 8);
  scratch.fill(0x7b);
  scratch.set(ping);
  assert.equal(native.startListed(core, 0, "POST", "authorization\0x\0content-type\0application/json\0"), "a");
  assert.throws(() => native.authenticate(core, 0, 1, undefined, undefined, scratch.length + 1), TypeError);
  assert.match(native.authenticate(core, 0, 1, undefined, new Uint8Array(3), ping.length), /"id":1,"result":\{\}/);
  // Every scratch() is a view of the same memory.
  assert.equal(new Uint8Array(native.scratch())[0], ping[0]);
  // start takes each named header's value, or null; a value of another kind counts as none.
  assert.equal(native.start(core, 1, "POST", null, null, null, "Bearer x", null, null, null, null, null, null), "a");
  assert.ok(native.start(core, 2, "POST", "https://x, https://y", 7, {}).startsWith("H"));
  native.release(core, 1);
  // An id is a slot's generation (high 16 bits) and its index (low 16): the
  // slot `owner` holds can hold no other generation while it lives, so this
  // id names no endpoint whatever other test files in the process made.
  const gone = (core ^ 0x10000) >>> 0;
  assert.throws(() => native.tools(gone), new RegExp(`endpoint ${gone} is gone`));
  assert.throws(() => native.endpoint("not json"), Error);
  assert.equal(native.inFlight(core), 0);
});
