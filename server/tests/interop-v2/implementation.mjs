// Interop check: a whole implementation run (IMPLEMENTATION.md) through the
// official MCP TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned by package-lock.json) on revision 2026-07-28, which has no
// sessions: two agents, each its own client, race the claim; the winner
// reports the run to its delivery (`../interop/implementation_checks.mjs`).
// The run records the winner's clientInfo, and its own id stands in for
// the session (IMPLEMENTATION.md §3).
//
//   node implementation.mjs URL TOKEN REPOSITORY DOCUMENT_ID
//
// The document must hold an approved graph as `implementation_checks.mjs`
// says. Prints one line per check ("ok ..." or "FAIL ...") and exits
// non-zero when any fails.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { check, expect, finish } from "../interop/checks.mjs";
import { implementationChecks } from "../interop/implementation_checks.mjs";

const MODERN = "2026-07-28";
const [url, token, repository, documentId] = process.argv.slice(2);
if (!documentId) {
  console.error("usage: node implementation.mjs URL TOKEN REPOSITORY DOCUMENT_ID");
  process.exit(2);
}

const agents = ["alpha", "beta"].map((who) => {
  const name = `chopin-interop-v2-agent-${who}`;
  const client = new Client({ name, version: "2.4.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  return { client, transport, name, version: "2.4.0", session: null };
});

await check(`${MODERN}, two agents, no sessions`, async () => {
  for (const agent of agents) {
    await agent.client.connect(agent.transport);
    const negotiated = agent.client.getNegotiatedProtocolVersion();
    expect(negotiated === MODERN, `negotiated ${negotiated}`);
    expect(agent.transport.sessionId === undefined, `a session ${agent.transport.sessionId}`);
  }
  const { tools } = await agents[0].client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(names.includes("start_implementation") && names.includes("report_verification"), `tools ${names}`);
  return MODERN;
});

const key = `implementation-v2-${process.pid}-${Date.now()}`;
await implementationChecks("", agents, { documentId, repository, key });

await check(`still ${MODERN} at the end`, async () => {
  expect(agents.every((agent) => agent.client.getProtocolEra() === "modern"), "left the modern era");
  return agents[0].client.getNegotiatedProtocolVersion();
});

for (const agent of agents) await agent.client.close().catch(() => {});
finish("interop v2 implementation");
