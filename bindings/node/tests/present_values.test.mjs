// The hot steps' `present` argument: `run` reads only the header values it
// names, and `answerRead` only the optional fields it names, each other one
// counting as none (the handler passes it so that an absent value costs no
// Node-API call). Without it, every value is looked at, as before. Their
// `apart` bits: a read effect and a known head's response come back as
// their payload alone, the tag in the scratch buffer's register.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const native = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);

const ID = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const BODY = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_document", arguments: { id: ID } } }),
).buffer;
// The values of NAMED 3 to 7: authorization, mcp-protocol-version, accept,
// content-type, content-length; bits 3 to 7 of `present`.
const AUTHORIZATION = 8;
const ACCEPT = 32;
const ALL = 8 | 16 | 32 | 64 | 128;

/** `run` on a fresh endpoint (its own response heads), slot 0. */
function run(values, present) {
  const core = native.endpointId(native.endpoint("{}"));
  const [authorization, version, accept, type, length] = values;
  const args = [core, 0, "POST", null, null, null, authorization, version, accept, type, length, null, null, null, 1, undefined, BODY];
  const out = present === undefined ? native.run(...args) : native.run(...args, present);
  return { core, out };
}

const VALUES = ["Bearer x", "2025-03-26", "application/json, text/event-stream", "application/json", String(BODY.byteLength)];

test("run reads the header values `present` names, and counts the others as none", () => {
  const whole = run(VALUES, ALL);
  assert.equal(whole.out, `r${ID}`);
  native.release(whole.core, 0);
  // Without `present`, every value is read: the same read effect.
  const unmarked = run(VALUES);
  assert.equal(unmarked.out, `r${ID}`);
  native.release(unmarked.core, 0);

  // An Accept the endpoint refuses (406), given but not named: the
  // endpoint sees no Accept, exactly as when it is null.
  const refused = [VALUES[0], VALUES[1], "text/html", VALUES[3], VALUES[4]];
  assert.ok(run(refused, ALL).out.startsWith("H0406"));
  assert.ok(run(refused).out.startsWith("H0406"));
  const unnamed = run(refused, ALL & ~ACCEPT);
  assert.equal(unnamed.out, `r${ID}`);
  native.release(unnamed.core, 0);
  const absent = run([VALUES[0], VALUES[1], null, VALUES[3], VALUES[4]]);
  assert.equal(absent.out, `r${ID}`);
  native.release(absent.core, 0);

  // A value named but not a string counts as none, as without `present`.
  const notString = run([VALUES[0], VALUES[1], 7, VALUES[3], VALUES[4]], ALL);
  assert.equal(notString.out, `r${ID}`);
  native.release(notString.core, 0);
  assert.ok(run([VALUES[0], "1999-01-01", ...VALUES.slice(2)], ALL).out.startsWith("H0400"));
  assert.ok(run([VALUES[0], 1999, ...VALUES.slice(2)], ALL).out.startsWith("r"));

  // The authorization header is not read either when not named; the
  // caller's verdict (1) still decides who the caller is.
  const noAuthorization = run(VALUES, ALL & ~AUTHORIZATION);
  assert.equal(noAuthorization.out, `r${ID}`);
  native.release(noAuthorization.core, 0);
});

/** The reply body of answerRead on a fresh endpoint's read effect. */
function reply(optionals, present) {
  const { core, out } = run(VALUES, ALL);
  assert.equal(out, `r${ID}`);
  const args = [core, 0, ID, "Release readiness", "# Release readiness\n", 4, ...optionals];
  const answered = present === undefined ? native.answerRead(...args) : native.answerRead(...args, present);
  assert.equal(native.inFlight(core), 0);
  return JSON.parse(answered.slice(answered.indexOf('{"jsonrpc"'))).result.structuredContent;
}

test("answerRead reads the optional fields `present` names, and no other", () => {
  const brief = JSON.stringify({ goal: "Ship", constraints: [], settledDecisions: [], openQuestions: [], repositoryFindings: [] });
  const given = [brief, "Described", "2026-12-01T00:00:00Z", "https://plans.example/d"];

  const all = reply(given, 1 | 2 | 4 | 8);
  assert.equal(all.brief.goal, "Ship");
  assert.equal(all.description, "Described");
  assert.equal(all.archivedAt, "2026-12-01T00:00:00Z");
  assert.equal(all.url, "https://plans.example/d");
  // Without `present`, each given field is read: the same document.
  assert.deepEqual(reply(given), all);

  // Given but not named: left out, as when undefined.
  const bare = reply(given, 0);
  assert.deepEqual(bare, reply([undefined, undefined, undefined, undefined]));
  assert.equal(bare.description, undefined);
  assert.equal(bare.url, undefined);
  const described = reply(given, 2);
  assert.equal(described.description, "Described");
  assert.equal(described.archivedAt, undefined);

  // Named but not a string: a TypeError, as a non-string is without `present`.
  const { core } = run(VALUES, ALL);
  assert.throws(() => native.answerRead(core, 0, ID, "t", "s", 4, undefined, 7, undefined, undefined, 2), TypeError);
  assert.throws(() => native.answerRead(core, 0, ID, "t", "s", 4, undefined, 7), TypeError);
  native.release(core, 0);
});

test("with their apart bits, run and answerRead give a read's id and a known head's body alone, tags in the register", () => {
  const RUN_APART = 1 << 29;
  const READ_APART = 32;
  const memory = native.scratch();
  const register = new Uint8Array(memory, memory.byteLength - 8, 2);
  const { core, out } = run(VALUES, ALL | RUN_APART);
  assert.equal(out, ID);
  assert.equal(String.fromCharCode(register[0]), "r");
  // The first answer names its head (H): whole, the register's tag 0.
  const first = native.answerRead(core, 0, ID, "Release readiness", "# Release readiness\n", 4, undefined, undefined, undefined, undefined, READ_APART);
  assert.ok(first.startsWith("H0200\n"), first);
  assert.equal(register[0], 0);
  const body = first.slice(first.indexOf("\0") + 1);
  // The next, of a head JavaScript knows: its body alone, R and the head's id.
  const again = [core, 0, "POST", null, null, null, ...VALUES, null, null, null, 1, undefined, BODY];
  assert.equal(native.run(...again, ALL | RUN_APART), ID);
  const apart = native.answerRead(core, 0, ID, "Release readiness", "# Release readiness\n", 4, undefined, undefined, undefined, undefined, READ_APART);
  assert.equal(apart, body);
  assert.deepEqual([String.fromCharCode(register[0]), String.fromCharCode(register[1])], ["R", "0"]);
  // Without the bits, whole as ever.
  assert.equal(native.run(...again, ALL), `r${ID}`);
  assert.equal(native.answerRead(core, 0, ID, "Release readiness", "# Release readiness\n", 4, undefined, undefined, undefined, undefined, 0), `R0${body}`);
  // A response from run: apart too, its body alone.
  const refused = [core, 0, "POST", null, null, null, VALUES[0], VALUES[1], "text/html", VALUES[3], VALUES[4], null, null, null, 1, undefined, BODY];
  assert.equal(native.run(...refused, ALL), "H1406\ncontent-type\ntext/plain; charset=utf-8\ncache-control\nno-store\nx-content-type-options\nnosniff\0not acceptable");
  assert.equal(native.run(...refused, ALL | RUN_APART), "not acceptable");
  assert.deepEqual([String.fromCharCode(register[0]), String.fromCharCode(register[1])], ["R", "1"]);
  assert.equal(native.inFlight(core), 0);
});
