// Interop check: upload_image through the official MCP TypeScript SDK client
// 1.32 (whose `callTool` validates structuredContent against the tool's
// output schema, error results included), then the image fetched back from
// the path it answered, with the same token, byte for byte.
//
//   node upload.mjs URL TOKEN DOCUMENT_ID
//
// The token's caller must be able to write the document. Prints one line
// per check ("ok ..." or "FAIL ...") and exits non-zero when any fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, expect, finish } from "./checks.mjs";

const [url, token, documentId] = process.argv.slice(2);
if (!documentId) {
  console.error("usage: node upload.mjs URL TOKEN DOCUMENT_ID");
  process.exit(2);
}

// A real PNG: one transparent pixel (IHDR, IDAT, IEND).
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const bytes = Buffer.from(PNG, "base64");

const client = new Client({ name: "chopin-interop-upload", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});

await check("initialize, upload_image listed", async () => {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const upload = tools.find((tool) => tool.name === "upload_image");
  expect(upload !== undefined, `tools ${tools.map((tool) => tool.name)}`);
  expect(upload.inputSchema.properties.data.maxLength === 1398104, "data's maxLength");
  return upload.title;
});

let path;
await check("upload_image of a real PNG answers its path and Markdown", async () => {
  const result = await client.callTool({ name: "upload_image", arguments: { id: documentId, data: PNG, mimeType: "image/png" } });
  expect(!result.isError, JSON.stringify(result));
  path = result.structuredContent.path;
  expect(/^\/images\/[0-9a-f]{64}\.png$/.test(path), `path ${path}`);
  expect(result.structuredContent.markdown === `![](${path})`, "markdown");
  return path;
});

await check("the same bytes again answer the same path", async () => {
  const result = await client.callTool({ name: "upload_image", arguments: { id: documentId, data: PNG, mimeType: "image/png" } });
  expect(result.structuredContent.path === path, JSON.stringify(result.structuredContent));
});

await check("a signature mismatch is an error result the client reads", async () => {
  const result = await client.callTool({ name: "upload_image", arguments: { id: documentId, data: PNG, mimeType: "image/gif" } });
  expect(result.isError === true && result.structuredContent.code === "signature-mismatch", JSON.stringify(result));
});

await check("the path serves the bytes to the token", async () => {
  const response = await fetch(new URL(path, url), { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status === 200, `status ${response.status}`);
  expect(response.headers.get("content-type") === "image/png", response.headers.get("content-type"));
  const served = Buffer.from(await response.arrayBuffer());
  expect(served.equals(bytes), `${served.length} bytes`);
  const anonymous = await fetch(new URL(path, url));
  expect(anonymous.status === 401, `without a token: ${anonymous.status}`);
  return `${served.length} bytes`;
});

await client.close();
finish("interop upload");
