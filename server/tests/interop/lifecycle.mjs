// Interop check: a plan's whole life (update, rename, archive, restore; a
// denied list) through the official MCP TypeScript SDK client 1.32 in the
// handshake era, whose `callTool` validates structuredContent against the
// tool's output schema even for error results.
//
//   node lifecycle.mjs URL TOKEN REPOSITORY DENIED_REPOSITORY
//
// The token's caller must be able to create in REPOSITORY and have no grant
// for DENIED_REPOSITORY; the server must offer the write tools. Prints one
// line per check ("ok ..." or "FAIL ...") and exits non-zero when any fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, expect, finish, lifecycleChecks } from "./checks.mjs";

const [url, token, repository, denied] = process.argv.slice(2);
if (!denied) {
  console.error("usage: node lifecycle.mjs URL TOKEN REPOSITORY DENIED_REPOSITORY");
  process.exit(2);
}

const client = new Client({ name: "chopin-interop-lifecycle", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});

await check("initialize, the write tools listed", async () => {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  const wanted = ["update_document", "rename_document", "archive_document", "restore_document"];
  expect(wanted.every((name) => names.includes(name)), `tools ${names}`);
  return `${client.getServerVersion()?.name}: ${names.join(", ")}`;
});

await lifecycleChecks("", client, { repository, denied, key: `lifecycle-${process.pid}-${Date.now()}` });

await client.close();
finish("interop lifecycle");
