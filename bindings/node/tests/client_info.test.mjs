// SURFACE.md §10–11 through the package: `initialize` issues a stateless
// `mcp-session-id`; update.update and create.create get the client as their
// third argument (and the Update and Create steps as `client`); the
// handler's instructions are generated from the offered tools by default.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DRAFT, REVISION, memoryHost, post, readWrite, resultOf, call } from "./support/host.mjs";

const initialize = (clientInfo) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo },
});

/** A handler over a memory host whose update and create record their third argument. */
function recording() {
  const host = memoryHost();
  const clients = [];
  const options = readWrite(host);
  const { updater, creator } = host;
  options.update = { update: (caller, input, client) => (clients.push(["update", client]), updater.update(caller, input)) };
  options.create = { create: (caller, input, client) => (clients.push(["create", client]), creator.create(caller, input)) };
  return { mcp: handler(options), clients };
}

test("initialize issues c1.<name>.<version>.<ULID> and an update sending it names its client", async () => {
  const { mcp, clients } = recording();
  const response = await mcp(post(initialize({ name: "update-test", version: "1" })));
  assert.equal(response.status, 200);
  const session = response.headers.get("mcp-session-id");
  assert.match(session, /^c1\.dXBkYXRlLXRlc3Q\.MQ\.[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  await resultOf(mcp, call("update_document", REVISION), { "mcp-session-id": session });
  await resultOf(mcp, call("create_document", DRAFT), { "mcp-session-id": session });
  assert.deepEqual(clients, [
    ["update", { name: "update-test", version: "1" }],
    ["create", { name: "update-test", version: "1" }],
  ]);
});

test("without a well-formed session id the client is unknown", async () => {
  const { mcp, clients } = recording();
  await resultOf(mcp, call("update_document", REVISION));
  await resultOf(mcp, call("update_document", REVISION), { "mcp-session-id": "c1.%%" });
  const unknown = { name: "unknown", version: "unknown" };
  assert.deepEqual(clients, [["update", unknown], ["update", unknown]]);
});

test("an initialize notification gets 202 and no session id", async () => {
  const { mcp } = recording();
  const { id: _, ...notification } = initialize({ name: "n", version: "1" });
  const response = await mcp(post(notification));
  assert.equal(response.status, 202);
  assert.equal(response.headers.get("mcp-session-id"), null);
});

test("the Update and Create steps carry the client", () => {
  const endpoint = new Endpoint({ create: true, update: true });
  const raw = (session) => ["Authorization", "Bearer allowed", "Content-Type", "application/json", "Mcp-Session-Id", session];
  const bytes = (value) => new TextEncoder().encode(JSON.stringify(value));
  let step = endpoint.begin("POST", raw("none")).answer("octocat").finish(bytes(initialize({ name: "Codex", version: "1.2.3" })));
  const session = step.headers["mcp-session-id"];
  assert.match(session, /^c1\.Q29kZXg\.MS4yLjM\./);
  step = endpoint.begin("POST", raw(session)).answer("octocat").finish(bytes(call("update_document", REVISION)));
  assert.equal(step.kind, "update");
  assert.deepEqual(step.client, { name: "Codex", version: "1.2.3" });
  step.abandon();
  step = endpoint.begin("POST", raw(session)).answer("octocat").finish(bytes(call("create_document", DRAFT)));
  assert.equal(step.kind, "create");
  assert.deepEqual(step.client, { name: "Codex", version: "1.2.3" });
  step.abandon();
});

test("the handler's instructions are generated from the offered tools unless given", async () => {
  const host = memoryHost();
  const generated = (await resultOf(handler(readWrite(host)), initialize({ name: "n", version: "1" }))).instructions;
  const lines = generated.split("\n");
  assert.equal(lines[0], "Chopin's MCP contract and current tool descriptions are authoritative.");
  assert.deepEqual(
    lines.slice(1).map((line) => line.slice(0, line.indexOf(":"))),
    ["create_document", "update_document", "rename_document", "archive_document", "restore_document"],
  );
  const readOnly = handler({ caller: () => "octocat", documents: host.reader });
  assert.equal((await resultOf(readOnly, initialize({}))).instructions, lines[0]);
  const own = handler({ ...readWrite(host), instructions: "Read plans." });
  assert.equal((await resultOf(own, initialize({}))).instructions, "Read plans.");
});
