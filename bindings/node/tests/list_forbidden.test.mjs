// A denied repository is said, not hidden: documents.list answering
// "forbidden" is the error result repository-forbidden; a granted
// repository without documents is still an empty list.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { REPOSITORY, call, memoryHost, resultOf } from "./support/host.mjs";

test("a list answered \"forbidden\" is repository-forbidden; an empty one is []", async () => {
  const host = memoryHost({ denied: ["octo/secret"] });
  const mcp = handler({ caller: () => "octocat", documents: host.reader });
  const denied = await resultOf(mcp, call("list_documents", { repository: "octo/secret" }));
  assert.deepEqual(denied.structuredContent, { code: "repository-forbidden" });
  assert.equal(denied.isError, true);
  assert.deepEqual(JSON.parse(denied.content[0].text), { code: "repository-forbidden" });
  const empty = await resultOf(mcp, call("list_documents", { repository: "octo/empty" }));
  assert.deepEqual(empty.structuredContent, { documents: [] });
  assert.equal(empty.isError, undefined);
  assert.equal((await resultOf(mcp, call("list_documents", { repository: REPOSITORY }))).structuredContent.documents.length, 1);
});

test("an Endpoint's list step takes \"forbidden\" too; another string is a TypeError", () => {
  const endpoint = new Endpoint();
  const begin = () => endpoint.begin("POST", ["Content-Type", "application/json"]).answer("octocat").finish(new TextEncoder().encode(JSON.stringify(call("list_documents", { repository: REPOSITORY }))));
  const step = begin().answer("forbidden");
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { code: "repository-forbidden" });
  assert.throws(() => begin().answer("denied"), (error) => error instanceof TypeError && /must give an array of \{ id, title \} or "forbidden"/.test(error.message));
});
