// Interop check: the official MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned by package-lock.json) against a
// running chopin-mcp server, on revision 2026-07-28.
//
//   node modern.mjs URL TOKEN [DOCUMENT_ID] [REPOSITORY]
//
// Runs the checks twice: with versionNegotiation `{ pin: "2026-07-28" }` and
// with `"auto"` (probes server/discover and must land on 2026-07-28, not fall
// back to initialize). Prints one line per check ("ok ..." or "FAIL ...") and
// exits non-zero when any check fails. The document must exist in the
// repository and be readable with the token; creation needs a server that
// offers create_document (not --read-only).
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { check, createChecks, documentChecks, draft, expect, finish } from "../interop/checks.mjs";

const MODERN = "2026-07-28";
const [url, token, documentId = "f401c8d6-3717-4f1d-8473-cfdd0af894e4", repository = "githubnext/chopin"] =
  process.argv.slice(2);
if (!url || !token) {
  console.error("usage: node modern.mjs URL TOKEN [DOCUMENT_ID] [REPOSITORY]");
  process.exit(2);
}

function connectAs(bearer, mode) {
  const headers = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  const client = new Client({ name: "chopin-interop-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  return { client, connecting: client.connect(transport) };
}

async function runMode(mode) {
  const label = `[${typeof mode === "string" ? mode : `pin ${mode.pin}`}]`;
  const { client, connecting } = connectAs(token, mode);

  await check(`${label} discover`, async () => {
    await connecting;
    expect(client.getProtocolEra() === "modern", `era ${client.getProtocolEra()}: the client fell back to initialize`);
    expect(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
    const discover = client.getDiscoverResult();
    expect(discover?.supportedVersions?.includes(MODERN), `supportedVersions ${JSON.stringify(discover)}`);
    expect(client.getServerCapabilities()?.tools, "no tools capability");
    const server = client.getServerVersion();
    expect(server?.name === "chopin", `serverInfo ${JSON.stringify(server)}`);
    return `${client.getNegotiatedProtocolVersion()}, ${server.name} ${server.version}, supported ${discover.supportedVersions}`;
  });

  await check(`${label} tools/list`, async () => {
    const result = await client.listTools();
    const names = result.tools.map((tool) => tool.name);
    for (const wanted of ["list_documents", "read_document", "create_document"]) {
      expect(names.includes(wanted), `${wanted} missing from ${names}`);
    }
    expect(Number.isInteger(result.ttlMs) && result.ttlMs >= 0 && result.cacheScope === "public", `ttlMs ${result.ttlMs}, ${result.cacheScope}`);
    return `${names.join(", ")} (ttlMs ${result.ttlMs}, cacheScope ${result.cacheScope})`;
  });

  await documentChecks(`${label} `, client, { documentId, repository });

  const callTool = (name, args) => client.callTool({ name, arguments: args });
  await createChecks(`${label} `, client, {
    draft: draft(`interop-v2-${label}-${process.pid}-${Date.now()}`, repository),
    callError: callTool,
  });

  await check(`${label} still ${MODERN} at the end`, async () => {
    expect(client.getProtocolEra() === "modern", `era ${client.getProtocolEra()}`);
    return client.getNegotiatedProtocolVersion();
  });

  await client.close().catch(() => {});
}

for (const mode of [{ pin: MODERN }, "auto"]) {
  await runMode(mode);
}

await check(`[pin ${MODERN}] no token: 401`, async () => {
  const { client: stranger, connecting: refused } = connectAs(null, { pin: MODERN });
  try {
    await refused;
  } catch (error) {
    const message = String(error?.message ?? error);
    const status = error instanceof SdkHttpError ? error.status : undefined;
    expect(status === 401 || /401|unauthorized/i.test(message), `unexpected error: ${message}`);
    return `refused (${status ?? message})`;
  } finally {
    await stranger.close().catch(() => {});
  }
  throw new Error("connected without a token");
});

finish("interop v2");
