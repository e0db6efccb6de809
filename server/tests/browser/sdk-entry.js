// The official MCP TypeScript SDK client in the browser, from an allowed
// origin. server/tests/browser_cors.rs bundles this file with esbuild into
// sdk.js (in the target directory) for sdk.html.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, documentId, expect, finish, mcp, token } from "./checks.js";

function connectAs(bearer) {
  const client = new Client({ name: "chopin-browser-sdk", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcp), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  return { client, connecting: client.connect(transport) };
}

const { client, connecting } = connectAs(token);

await check("connect", async () => {
  await connecting;
  const server = client.getServerVersion();
  expect(server?.name === "chopin", `serverInfo ${JSON.stringify(server)}`);
  return `${server.name} ${server.version}`;
});

await check("listTools", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(names.includes("read_document"), `read_document missing from ${names}`);
  return names.join(", ");
});

await check("callTool read_document", async () => {
  const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
  const doc = result.structuredContent;
  expect(!result.isError && doc?.id === documentId, JSON.stringify(result));
  return `"${doc.title}" revision ${doc.revision}`;
});

// Closing ends the transport's standing GET event stream, so no request is
// left open when the page is done.
await client.close();

await check("wrong token: connect fails with 401", async () => {
  const { client: stranger, connecting: refused } = connectAs("not-a-token");
  try {
    await refused;
  } catch (error) {
    const message = String(error?.message ?? error);
    expect(error?.code === 401 || /\b401\b|unauthorized/i.test(message), `unexpected error: ${message}`);
    return `code ${error?.code}: ${message}`;
  } finally {
    await stranger.close().catch(() => {});
  }
  throw new Error("connected with a wrong token");
});

finish();
