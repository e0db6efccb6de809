// Interop check: a plan's whole life (update, rename, archive, restore; a
// denied list) through the official MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned by package-lock.json) on revision
// 2026-07-28, whose `callTool` validates structuredContent against the
// tool's output schema.
//
//   node lifecycle.mjs URL TOKEN REPOSITORY DENIED_REPOSITORY
//
// The token's caller must be able to create in REPOSITORY and have no grant
// for DENIED_REPOSITORY; the server must offer the write tools. Prints one
// line per check ("ok ..." or "FAIL ...") and exits non-zero when any fails.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { check, expect, finish, lifecycleChecks } from "../interop/checks.mjs";

const MODERN = "2026-07-28";
const [url, token, repository, denied] = process.argv.slice(2);
if (!denied) {
  console.error("usage: node lifecycle.mjs URL TOKEN REPOSITORY DENIED_REPOSITORY");
  process.exit(2);
}

const client = new Client({ name: "chopin-interop-v2-lifecycle", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});

await check(`${MODERN}, the write tools listed`, async () => {
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  const wanted = ["update_document", "rename_document", "archive_document", "restore_document"];
  expect(wanted.every((name) => names.includes(name)), `tools ${names}`);
  return names.join(", ");
});

await lifecycleChecks("", client, { repository, denied, key: `lifecycle-v2-${process.pid}-${Date.now()}` });

await check(`still ${MODERN} at the end`, async () => {
  expect(client.getProtocolEra() === "modern", `era ${client.getProtocolEra()}`);
  return client.getNegotiatedProtocolVersion();
});

await client.close().catch(() => {});
finish("interop v2 lifecycle");
