// Interop check: the official MCP TypeScript SDK client against a running
// chopin-mcp server.
//
//   node interop.mjs [--read-only] URL TOKEN [DOCUMENT_ID] [REPOSITORY]
//
// With --read-only the server must not offer create_document, and the
// creation checks are left out. Prints one line per check ("ok ..." or
// "FAIL ...") and exits non-zero when any check fails. The document must
// exist in the repository and be readable with the token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, createChecks, documentChecks, draft, expect, finish } from "./checks.mjs";

const readOnly = process.argv.includes("--read-only");
const [url, token, documentId = "f401c8d6-3717-4f1d-8473-cfdd0af894e4", repository = "githubnext/chopin"] =
  process.argv.slice(2).filter((arg) => arg !== "--read-only");
if (!url || !token) {
  console.error("usage: node interop.mjs [--read-only] URL TOKEN [DOCUMENT_ID] [REPOSITORY]");
  process.exit(2);
}

function connectAs(bearer) {
  const headers = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  const client = new Client({ name: "chopin-interop", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  return { client, connecting: client.connect(transport) };
}

const { client, connecting } = connectAs(token);

await check("initialize", async () => {
  await connecting;
  const server = client.getServerVersion();
  expect(server?.name === "chopin", `serverInfo ${JSON.stringify(server)}`);
  expect(client.getServerCapabilities()?.tools, "no tools capability");
  return `${server.name} ${server.version}`;
});

await check("tools/list", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const wanted of ["list_documents", "read_document"]) {
    expect(names.includes(wanted), `${wanted} missing from ${names}`);
  }
  return names.join(", ");
});

await documentChecks("", client, { documentId, repository });

if (readOnly) {
  await check("no create_document (read-only)", async () => {
    const { tools } = await client.listTools();
    expect(!tools.some((tool) => tool.name === "create_document"), "create_document offered");
  });
} else {
  // Creation (the servers offer create_document unless --read-only). This
  // SDK's `callTool` validates structuredContent against outputSchema even
  // when `isError` is set; create_document's output schema is a `oneOf` of
  // the document, `{code}` and `{issues}` (LIFECYCLE.md §5), so it reads
  // the error results too.
  const callTool = (name, args) => client.callTool({ name, arguments: args });
  const drafted = draft(`interop-${process.pid}-${Date.now()}`, repository);
  await createChecks("", client, { draft: drafted, callError: callTool });
}

await client.close();

await check("no token: 401", async () => {
  const { client: stranger, connecting: refused } = connectAs(null);
  try {
    await refused;
  } catch (error) {
    const message = String(error?.message ?? error);
    expect(error?.code === 401 || /401|unauthorized/i.test(message), `unexpected error: ${message}`);
    return "refused";
  } finally {
    await stranger.close().catch(() => {});
  }
  throw new Error("connected without a token");
});

finish("interop");
