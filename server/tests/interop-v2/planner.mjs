// Interop check: invoke_planner through the official MCP TypeScript SDK v2
// client (@modelcontextprotocol/client, pinned by package-lock.json) on
// revision 2026-07-28, whose `callTool` validates structuredContent against
// the tool's output schema. The server must run with --planner-command
// (server_interop_planner.rs gives it a script that records each turn's
// stdin and environment).
//
//   node planner.mjs URL TOKEN DOCUMENT_ID INSTRUCTION
//
// Sends INSTRUCTION with the checkout /tmp/chopin-checkout; an unknown
// document and a relative checkout (on this revision an error result with
// the -32602 message) start no turn. Prints one line per check
// ("ok ..." or "FAIL ...") and exits non-zero when any fails.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { check, expect, finish } from "../interop/checks.mjs";

const MODERN = "2026-07-28";
const [url, token, documentId, instruction] = process.argv.slice(2);
if (!instruction) {
  console.error("usage: node planner.mjs URL TOKEN DOCUMENT_ID INSTRUCTION");
  process.exit(2);
}

const client = new Client({ name: "chopin-interop-v2-planner", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});

await check(`${MODERN}, invoke_planner listed with its schemas`, async () => {
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
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

// On 2026-07-28 an argument failure is a tool execution error carrying the
// -32602 message (MODERN.md §4), which the client reads without raising.
await check("a relative checkout is an error result with the -32602 message", async () => {
  const result = await client.callTool({ name: "invoke_planner", arguments: { id: documentId, instruction, checkout: "relative/path" } });
  expect(result.isError === true && result.structuredContent === undefined, JSON.stringify(result));
  const text = result.content.map((part) => part.text).join("");
  expect(text === "invoke_planner requires an id or URL, instruction, and optional absolute checkout", text);
  return text;
});

await check(`still ${MODERN} after the refusal`, async () => {
  const { tools } = await client.listTools();
  expect(tools.some((tool) => tool.name === "invoke_planner"), "invoke_planner gone");
  expect(client.getProtocolEra() === "modern", `era ${client.getProtocolEra()}`);
  return client.getNegotiatedProtocolVersion();
});

await client.close().catch(() => {});
finish("interop v2 planner");
