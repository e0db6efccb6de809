// TOOLS is what a read-only handler's tools/list gives; tools(options) is
// what a handler (or Endpoint) with those options offers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, TOOLS, handler, tools } from "chopin-mcp";
import { memoryHost, post } from "./support/host.mjs";

async function listed(mcp) {
  const reply = await (await mcp(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }))).json();
  return reply.result.tools;
}

test("TOOLS equals a read-only handler's tools/list", async () => {
  const host = memoryHost();
  const mcp = handler({ caller: () => "octocat", documents: host.reader });
  assert.deepEqual(await listed(mcp), TOOLS);
  assert.deepEqual(TOOLS.map((tool) => tool.name), ["list_documents", "read_document"]);
  assert.deepEqual(TOOLS[0].inputSchema.required, ["repository"]);
});

test("tools(options) is what a handler with those options lists", async () => {
  const host = memoryHost();
  const options = { caller: () => "octocat", documents: host.reader, create: host.creator };
  const offered = tools(options);
  assert.deepEqual(offered.map((tool) => tool.name), ["list_documents", "read_document", "create_document"]);
  assert.deepEqual(await listed(handler(options)), offered);
  assert.deepEqual(tools(), TOOLS);
  assert.deepEqual(new Endpoint({ create: true }).tools(), offered);
  assert.deepEqual(new Endpoint().tools(), TOOLS);
});

test("TOOLS cannot be changed by accident; tools() gives fresh copies", () => {
  assert.ok(Object.isFrozen(TOOLS) && Object.isFrozen(TOOLS[0].inputSchema.properties));
  assert.throws(() => {
    "use strict";
    TOOLS[0].name = "changed";
  }, TypeError);
  const copy = tools();
  copy[0].name = "changed";
  assert.equal(tools()[0].name, "list_documents");
});
