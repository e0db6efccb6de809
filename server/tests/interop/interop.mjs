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
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, expect, finish } from "./checks.mjs";

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

await check("list_documents", async () => {
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

await check("read_document (found)", async () => {
  const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
  const doc = result.structuredContent;
  expect(!result.isError && doc?.id === documentId, JSON.stringify(result));
  expect(typeof doc.source === "string" && Number.isInteger(doc.revision), JSON.stringify(doc));
  return `"${doc.title}" revision ${doc.revision}`;
});

await check("read_document (absent)", async () => {
  const result = await client.callTool({ name: "read_document", arguments: { id: "no-such-document" } });
  expect(result.isError === true && result.content.length === 0, JSON.stringify(result));
  return "isError with no content";
});

if (readOnly) {
  await check("no create_document (read-only)", async () => {
    const { tools } = await client.listTools();
    expect(!tools.some((tool) => tool.name === "create_document"), "create_document offered");
  });
} else {
  // Creation (the servers offer create_document unless --read-only).
  const draft = {
    idempotencyKey: `interop-${process.pid}-${Date.now()}`,
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

  await check("create_document (created)", async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    created = result.structuredContent;
    expect(!result.isError && created?.revision === 0, JSON.stringify(result));
    expect(/<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">/.test(created.source), created.source);
    expect(created.url === `/documents/${created.id}`, `url ${created.url}`);
    return `${created.id} at ${created.url}`;
  });

  await check("create_document (replayed)", async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    expect(!result.isError && result.structuredContent?.id === created?.id, JSON.stringify(result));
    expect(result.structuredContent.source === created.source, "a replay must return the stored source");
    return `same document ${created.id}`;
  });

  // Error results carry structuredContent (DIALECT.md §11.5: `{code}` or
  // `{issues}`) that is not the output schema's document. This SDK's
  // `callTool` validates structuredContent against outputSchema even when
  // `isError` is set, so it throws on them; the plain `request` reads them.
  function callRaw(name, args) {
    return client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema);
  }

  await check("create_document (conflict)", async () => {
    const result = await callRaw("create_document", { ...draft, title: "A changed title" });
    expect(result.isError === true && result.structuredContent?.code === "idempotency-conflict", JSON.stringify(result));
    return "idempotency-conflict";
  });

  await check("create_document (dialect issues)", async () => {
    const result = await callRaw("create_document", {
      ...draft,
      idempotencyKey: `${draft.idempotencyKey}-issues`,
      plan: "<Chart />\n",
    });
    const issues = result.structuredContent?.issues ?? [];
    expect(result.isError === true && issues[0]?.code === "unknown-component", JSON.stringify(result));
    expect(issues[0].path === "root > Chart[0]" && issues[0].offset === 0, JSON.stringify(issues[0]));
    return issues.map((issue) => issue.code).join(", ");
  });

  await check("callTool on an error result (SDK behaviour, pinned)", async () => {
    try {
      await client.callTool({ name: "create_document", arguments: { ...draft, title: "Changed again" } });
    } catch (error) {
      expect(/output schema/.test(String(error?.message)), `unexpected error: ${error?.message}`);
      return "the SDK rejects error results whose structuredContent is not the output schema";
    }
    throw new Error("callTool accepted an error result: the SDK changed, revisit callRaw");
  });

  await check("read_document (created)", async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: created?.id } });
    expect(!result.isError && result.structuredContent?.source === created?.source, JSON.stringify(result));
    return `revision ${result.structuredContent.revision}`;
  });
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
