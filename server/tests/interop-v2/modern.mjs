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
import { check, expect, finish } from "../interop/checks.mjs";

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

  await check(`${label} list_documents`, async () => {
    const result = await client.callTool({ name: "list_documents", arguments: { repository } });
    expect(!result.isError, `isError in ${JSON.stringify(result)}`);
    const documents = result.structuredContent?.documents ?? [];
    expect(
      documents.some((doc) => doc.id === documentId),
      `${documentId} not in ${JSON.stringify(documents)}`,
    );
    expect(JSON.parse(result.content[0].text).documents.length === documents.length, "text and structuredContent differ");
    return `${documents.length} in ${repository}`;
  });

  await check(`${label} read_document (found)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
    const doc = result.structuredContent;
    expect(!result.isError && doc?.id === documentId, JSON.stringify(result));
    expect(typeof doc.source === "string" && Number.isInteger(doc.revision), JSON.stringify(doc));
    return `"${doc.title}" revision ${doc.revision}`;
  });

  await check(`${label} read_document (absent)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: "no-such-document" } });
    expect(result.isError === true && result.content.length === 0, JSON.stringify(result));
    return "isError with no content";
  });

  const draft = {
    idempotencyKey: `interop-v2-${label}-${process.pid}-${Date.now()}`,
    repository,
    baseBranch: "main",
    baseCommit: "0123456789abcdef0123456789abcdef01234567",
    title: "Ship MCP creation",
    brief: {
      goal: "Create a collaborative plan.",
      constraints: ["Keep plans immutable through MCP."],
      settledDecisions: ["Use the documented dialect."],
      openQuestions: ["Which reviewer owns the rollout?"],
      repositoryFindings: ["The plan becomes a hosted channel."],
    },
    plan: '# Draft\n\n<Callout type="note">\nCreated through MCP.\n</Callout>\n',
  };
  let created;

  await check(`${label} create_document (created)`, async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    created = result.structuredContent;
    expect(!result.isError && created?.revision === 0, JSON.stringify(result));
    expect(/<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">/.test(created.source), created.source);
    expect(created.url === `/documents/${created.id}`, `url ${created.url}`);
    return `${created.id} at ${created.url}`;
  });

  await check(`${label} create_document (replayed)`, async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    expect(!result.isError && result.structuredContent?.id === created?.id, JSON.stringify(result));
    expect(result.structuredContent.source === created.source, "a replay must return the stored source");
    return `same document ${created.id}`;
  });

  // Error results carry structuredContent (DIALECT.md §11.5: `{code}` or
  // `{issues}`) that is not the output schema's document.
  await check(`${label} create_document (conflict)`, async () => {
    const result = await client.callTool({ name: "create_document", arguments: { ...draft, title: "A changed title" } });
    expect(result.isError === true && result.structuredContent?.code === "idempotency-conflict", JSON.stringify(result));
    return "idempotency-conflict";
  });

  await check(`${label} create_document (dialect issues)`, async () => {
    const result = await client.callTool({
      name: "create_document",
      arguments: { ...draft, idempotencyKey: `${draft.idempotencyKey}-issues`, plan: "<Chart />\n" },
    });
    const issues = result.structuredContent?.issues ?? [];
    expect(result.isError === true && issues[0]?.code === "unknown-component", JSON.stringify(result));
    expect(issues[0].path === "root > Chart[0]" && issues[0].offset === 0, JSON.stringify(issues[0]));
    return issues.map((issue) => issue.code).join(", ");
  });

  await check(`${label} read_document (created)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: created?.id } });
    expect(!result.isError && result.structuredContent?.source === created?.source, JSON.stringify(result));
    return `revision ${result.structuredContent.revision}`;
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
