// prepareUpdate (SURFACE.md §11): update_document's arguments prepared
// outside the handler give exactly what the handler's update effect hands
// the host (locator, revision, canonical plan with minted ids, key,
// fingerprint of the submitted values), the plan's issues, or undefined
// where the handler answers -32602. Runs under Node and Bun.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler, prepareUpdate } from "chopin-mcp";
import { createRequire } from "node:module";
import { REVISION, REVISION_FINGERPRINT, call, memoryHost, readWrite, resultOf } from "./support/host.mjs";

const CALLOUT = '<Callout type="note">\nA note.\n</Callout>\n';
const CALLOUT_FINGERPRINT = "47de85ef8680e43b358506492410405c7a195b8ae0b362546cb1d6b79ef3f01d";

/** What the handler's update effect hands the host for these arguments. */
async function hostInput(args) {
  const host = memoryHost();
  await resultOf(handler(readWrite(host)), call("update_document", args));
  const updates = host.calls.filter(([name]) => name === "update");
  assert.equal(updates.length, 1);
  return updates[0][2];
}

test("both entries export it", () => {
  assert.equal(typeof prepareUpdate, "function");
  assert.equal(createRequire(import.meta.url)("chopin-mcp").prepareUpdate, prepareUpdate);
});

test("a clean plan gives the input the handler hands the host, keys in its order", async () => {
  const prepared = prepareUpdate(REVISION);
  assert.deepEqual(Object.keys(prepared), ["input"]);
  assert.deepEqual(Object.keys(prepared.input), ["id", "revision", "plan", "idempotencyKey", "fingerprint"]);
  assert.deepEqual(prepared.input, { ...REVISION, fingerprint: REVISION_FINGERPRINT });
  assert.deepEqual(prepared.input, await hostInput(REVISION));
});

test("ids are minted into the plan while the retry fingerprint stays the submitted plan's", async () => {
  const args = { ...REVISION, plan: CALLOUT };
  const first = prepareUpdate(args).input;
  const second = prepareUpdate(args).input;
  assert.match(first.plan, /^<Callout id="[0-9A-Z]{26}" type="note">\nA note\.\n<\/Callout>\n$/);
  assert.notEqual(first.plan, second.plan);
  assert.equal(first.fingerprint, CALLOUT_FINGERPRINT);
  assert.equal(second.fingerprint, CALLOUT_FINGERPRINT);
  const hosted = await hostInput(args);
  assert.equal(hosted.fingerprint, first.fingerprint);
  assert.deepEqual({ ...hosted, plan: "" }, { ...first, plan: "" });
});

test("a canonical URL is kept as sent", () => {
  const id = "https://chopin.test/documents/githubnext/chopin/release-readiness";
  assert.equal(prepareUpdate({ ...REVISION, id }).input.id, id);
});

test("a plan with issues gives them and no input", () => {
  const prepared = prepareUpdate({ ...REVISION, plan: "<Chart />\n" });
  assert.deepEqual(Object.keys(prepared), ["issues"]);
  assert.equal(prepared.issues[0].code, "unknown-component");
  assert.equal(typeof prepared.issues[0].message, "string");
  assert.equal(typeof prepared.issues[0].path, "string");
});

test("arguments the handler refuses give undefined", () => {
  for (const args of [
    { ...REVISION, revision: -1 },
    { ...REVISION, revision: 1.5 },
    { ...REVISION, revision: "4" },
    { ...REVISION, revision: Number.MAX_SAFE_INTEGER + 1 },
    { ...REVISION, revision: Number.NaN },
    { ...REVISION, id: " " },
    { ...REVISION, id: "x".repeat(2049) },
    { ...REVISION, idempotencyKey: "x".repeat(129) },
    { ...REVISION, idempotencyKey: "" },
    { ...REVISION, plan: " " },
    { ...REVISION, extra: true },
    { ...REVISION, extra: undefined },
    { ...REVISION, revision: 4n },
    { id: REVISION.id, revision: 4, plan: REVISION.plan },
    [REVISION],
    null,
    undefined,
    "{}",
  ]) {
    assert.equal(prepareUpdate(args), undefined, JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));
  }
});
