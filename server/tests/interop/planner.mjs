// Interop check: invoke_planner through the official MCP TypeScript SDK
// client 1.32 (handshake era), whose `callTool` validates structuredContent
// against the tool's output schema, error results included. The server must
// run with --planner-command (server_interop_planner.rs gives it a script
// that records each turn's stdin and environment).
//
//   node planner.mjs URL TOKEN DOCUMENT_ID INSTRUCTION
//
// Sends INSTRUCTION with the checkout /tmp/chopin-checkout; an unknown
// document and a relative checkout start no turn. Prints one line per check
// ("ok ..." or "FAIL ...") and exits non-zero when any fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { check, expect, finish } from "./checks.mjs";

const [url, token, documentId, instruction] = process.argv.slice(2);
if (!instruction) {
  console.error("usage: node planner.mjs URL TOKEN DOCUMENT_ID INSTRUCTION");
  process.exit(2);
}

const client = new Client({ name: "chopin-interop-planner", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});

await check("initialize, invoke_planner listed with its schemas", async () => {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const invoke = tools.find((tool) => tool.name === "invoke_planner");
  expect(invoke !== undefined, `tools ${tools.map((tool) => tool.name)}`);
  expect(JSON.stringify(invoke.inputSchema.required) === '["id","instruction"]', JSON.stringify(invoke.inputSchema));
  expect(invoke.outputSchema?.oneOf?.length === 2, JSON.stringify(invoke.outputSchema));
  return invoke.title;
});

await check("invoke_planner answers the document at once", async () => {
  const result = await client.callTool({
    name: "invoke_planner",
    arguments: { id: documentId, instruction, checkout: "/tmp/chopin-checkout" },
  });
  expect(!result.isError, JSON.stringify(result));
  const answer = result.structuredContent;
  expect(answer.id === documentId && answer.url === `/documents/${documentId}`, JSON.stringify(answer));
  expect(typeof answer.title === "string" && answer.title.length > 0, JSON.stringify(answer));
  return `${answer.title} at ${answer.url}`;
});

await check("an unknown document is an error result the client reads", async () => {
  const result = await client.callTool({ name: "invoke_planner", arguments: { id: "no-such-document", instruction } });
  expect(result.isError === true && result.structuredContent?.code === "document-unavailable", JSON.stringify(result));
  return result.structuredContent.code;
});

await check("a relative checkout is refused with -32602", async () => {
  let refused;
  try {
    await client.callTool({ name: "invoke_planner", arguments: { id: documentId, instruction, checkout: "relative/path" } });
  } catch (error) {
    refused = error;
  }
  expect(refused instanceof McpError, `not a protocol error: ${refused}`);
  expect(refused.code === -32602, `code ${refused.code}`);
  expect(refused.message.includes("invoke_planner requires an id or URL, instruction, and optional absolute checkout"), refused.message);
  return `${refused.code} ${refused.message}`;
});

await check("the session still answers after the refusal", async () => {
  const { tools } = await client.listTools();
  expect(tools.some((tool) => tool.name === "invoke_planner"), "invoke_planner gone");
});

await client.close();
finish("interop planner");
