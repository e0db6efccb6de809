// Interop check: a whole implementation run (IMPLEMENTATION.md) through the
// official MCP TypeScript SDK client 1.32 in the handshake era: two agents,
// each its own client with the session its `initialize` returned, race the
// claim; the winner reports the run to its delivery
// (`implementation_checks.mjs`). The run records the winner's client and
// the ULID of its session id (IMPLEMENTATION.md §3).
//
//   node implementation.mjs URL TOKEN REPOSITORY DOCUMENT_ID
//
// The document must hold an approved graph as `implementation_checks.mjs`
// says. Prints one line per check ("ok ..." or "FAIL ...") and exits
// non-zero when any fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, expect, finish } from "./checks.mjs";
import { implementationChecks } from "./implementation_checks.mjs";

const [url, token, repository, documentId] = process.argv.slice(2);
if (!documentId) {
  console.error("usage: node implementation.mjs URL TOKEN REPOSITORY DOCUMENT_ID");
  process.exit(2);
}

const agents = ["alpha", "beta"].map((who) => {
  const name = `chopin-interop-agent-${who}`;
  const client = new Client({ name, version: "1.32.2" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  return { client, transport, name, version: "1.32.2", session: null };
});

await check("initialize, two agents, each its own session", async () => {
  for (const agent of agents) {
    await agent.client.connect(agent.transport);
    const id = agent.transport.sessionId ?? "";
    expect(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(id), `session id ${id}`);
    agent.session = id.split(".").pop();
  }
  expect(agents[0].session !== agents[1].session, "the same session twice");
  const { tools } = await agents[0].client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(names.includes("start_implementation") && names.includes("report_verification"), `tools ${names}`);
  return agents.map((agent) => agent.transport.sessionId).join(", ");
});

const key = `implementation-${process.pid}-${Date.now()}`;
await implementationChecks("", agents, { documentId, repository, key });

for (const agent of agents) await agent.client.close();
finish("interop implementation");
