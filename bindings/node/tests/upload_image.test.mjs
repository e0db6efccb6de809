// upload_image and /images/<file> through the package (SURFACE.md §8,
// §11, §12 case 3): the host gets exactly { id, mimeType, bytes } and the
// core's { sha256, path }; `uploaded` answers the core's path, and a host
// path that differs rejects with a TypeError; a handler with `images`
// serves the bytes to callers its `read` finds them for; Endpoint's
// "upload" step and image() exchange do the same step by step.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler, tools } from "chopin-mcp";
import { call, memoryHost, post, resultOf } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
const PNG12 = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
const HEX = "218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86";
const PATH = `/images/${HEX}.png`;
const LOCATOR = "/documents/githubnext/chopin/release-readiness";
const ARGUMENTS = { id: LOCATOR, data: "iVBORw0KGgoAAAAN", mimeType: "image/png" };

/** A handler whose upload host records its calls and answers `answer`. */
function uploading(answer, images) {
  const calls = [];
  const options = {
    caller: () => "octocat",
    documents: memoryHost().reader,
    upload: {
      upload(caller, input, paths) {
        calls.push([caller, input, paths]);
        return answer;
      },
    },
  };
  if (images !== undefined) options.images = images;
  return { mcp: handler(options), calls };
}

test("only a handler with `upload` lists upload_image, last", () => {
  const names = (options) => tools(options).map((tool) => tool.name);
  assert.ok(!names({ create: {} }).includes("upload_image"));
  const listed = names({ upload: { upload() {} }, restore: { restore() {} } });
  assert.equal(listed.at(-1), "upload_image");
  assert.equal(new Endpoint({ upload: true }).bodyBudget, 1_463_640);
});

test("the host gets { id, mimeType, bytes } and the core's paths; uploaded answers the core's path", async () => {
  const { mcp, calls } = uploading({ kind: "uploaded" });
  const result = await resultOf(mcp, call("upload_image", ARGUMENTS));
  assert.deepEqual(result.structuredContent, { path: PATH, markdown: `![](${PATH})` });
  assert.equal(calls.length, 1);
  const [caller, input, paths] = calls[0];
  assert.equal(caller, "octocat");
  assert.deepEqual(input, { id: LOCATOR, mimeType: "image/png", bytes: PNG12 });
  assert.deepEqual(Object.keys(input), ["id", "mimeType", "bytes"]);
  assert.deepEqual(paths, { sha256: HEX, path: PATH });
  // The host may name the same path.
  const same = uploading({ kind: "uploaded", path: PATH });
  assert.equal((await resultOf(same.mcp, call("upload_image", ARGUMENTS))).structuredContent.path, PATH);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("a host path other than the core's rejects with a TypeError", async () => {
  const { mcp } = uploading({ kind: "uploaded", path: `/images/${"a".repeat(64)}.png` });
  await assert.rejects(mcp(post(call("upload_image", ARGUMENTS))), TypeError);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("every other host answer is its code; a refused upload never reaches the host", async () => {
  for (const [kind, code] of [
    ["archived", "document-archived"],
    ["forbidden", "repository-forbidden"],
    ["unavailable", "document-unavailable"],
    ["too-large", "too-large"],
  ]) {
    const { mcp } = uploading({ kind });
    const result = await resultOf(mcp, call("upload_image", ARGUMENTS));
    assert.deepEqual(result.structuredContent, { code }, kind);
    assert.equal(result.isError, true);
  }
  const { mcp, calls } = uploading({ kind: "uploaded" });
  const mismatch = await resultOf(mcp, call("upload_image", { ...ARGUMENTS, mimeType: "image/gif" }));
  assert.deepEqual(mismatch.structuredContent, { code: "signature-mismatch" });
  const invalid = await resultOf(mcp, call("upload_image", { ...ARGUMENTS, data: "iVBORw0KGgo" }));
  assert.equal(invalid.code, -32602);
  assert.deepEqual(calls, []);
});

test("a handler with `images` serves the bytes to a caller its read finds them for, and 404 to others", async () => {
  const reads = [];
  const images = {
    read(caller, sha256, mimeType) {
      reads.push([caller, sha256, mimeType]);
      return caller === "octocat" && sha256 === HEX ? { mimeType: "image/png", bytes: PNG12 } : undefined;
    },
  };
  const options = {
    caller: (request) => (request.headers.get("authorization") === "Bearer allowed" ? "octocat" : request.headers.get("authorization") === "Bearer other" ? "hubot" : undefined),
    documents: memoryHost().reader,
    images,
  };
  const mcp = handler(options);
  const get = (path, token) => mcp(new Request(`http://localhost${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }));
  const found = await get(PATH, "allowed");
  assert.equal(found.status, 200);
  assert.deepEqual(new Uint8Array(await found.arrayBuffer()), PNG12);
  assert.equal(found.headers.get("content-type"), "image/png");
  assert.equal(found.headers.get("cache-control"), "private, max-age=31536000, immutable");
  assert.equal(found.headers.get("content-security-policy"), "default-src 'none'; sandbox");
  assert.equal(found.headers.get("etag"), `"${HEX}"`);
  const stranger = await get(PATH, "other");
  const unknown = await get(`/images/${"b".repeat(64)}.png`, "allowed");
  for (const response of [stranger, unknown]) {
    assert.equal(response.status, 404);
    assert.equal(await response.text(), "image not found");
  }
  assert.equal((await get(PATH, undefined)).status, 401);
  // A bad name: 404 before anyone is asked.
  const before = reads.length;
  assert.equal((await get(`/images/${HEX}.svg`, "allowed")).status, 404);
  assert.equal(reads.length, before);
  assert.deepEqual(reads[0], ["octocat", HEX, "image/png"]);
  const down = handler({ ...options, images: { read: () => "unavailable" } });
  assert.equal((await down(new Request(`http://localhost${PATH}`, { headers: { authorization: "Bearer allowed" } }))).status, 503);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("Endpoint's upload step and image exchange, step by step", () => {
  const endpoint = new Endpoint({ upload: true });
  const body = new TextEncoder().encode(JSON.stringify(call("upload_image", ARGUMENTS)));
  let step = endpoint.begin("POST", { "content-type": "application/json" }).answer("octocat").finish(body);
  assert.equal(step.kind, "upload");
  assert.deepEqual(step.input, { id: LOCATOR, mimeType: "image/png", bytes: PNG12 });
  assert.equal(step.sha256, HEX);
  assert.equal(step.path, PATH);
  step = step.answer({ kind: "uploaded" });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { path: PATH, markdown: `![](${PATH})` });

  let image = endpoint.image("GET", `${HEX}.png`, { authorization: "Bearer x" });
  assert.equal(image.kind, "authenticate");
  image = image.answer("octocat");
  assert.equal(image.kind, "image");
  assert.equal(image.sha256, HEX);
  assert.equal(image.mimeType, "image/png");
  image = image.answer({ mimeType: "image/png", bytes: PNG12 });
  assert.equal(image.status, 200);
  assert.deepEqual(image.body, PNG12);
  const missing = endpoint.image("GET", `${HEX}.png`, {}).answer("octocat").answer(undefined);
  assert.equal(missing.status, 404);
  assert.equal(missing.body, "image not found");
  assert.equal(endpoint[IN_FLIGHT](), 0);
});
