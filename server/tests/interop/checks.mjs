// The check runner both client scripts share (interop.mjs, and
// ../interop-v2/modern.mjs): each check prints one `ok`/`FAIL` line, a
// watchdog fails a run that hangs, and `finish` prints the verdict and exits.
// Also the tool checks both run the same way through either SDK's client:
// `documentChecks` (list, read found and absent) and `createChecks`.

// A server that stops answering must fail the run, not hang it.
setTimeout(() => {
  console.log("FAIL timeout: the checks did not finish in 60 s");
  process.exit(1);
}, 60_000).unref();

let failures = 0;

export async function check(name, run) {
  try {
    const detail = await run();
    console.log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}: ${error?.message ?? error}`);
  }
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// Prints `<label>: all checks passed` or the count of failures, and exits
// with 0 or 1 accordingly.
export function finish(label) {
  console.log(failures === 0 ? `${label}: all checks passed` : `${label}: ${failures} checks failed`);
  process.exit(failures === 0 ? 0 : 1);
}

// list_documents, then read_document found and absent, through `client`
// (either SDK's: both have `callTool`); `prefix` starts every check's name.
export async function documentChecks(prefix, client, { documentId, repository }) {
  await check(`${prefix}list_documents`, async () => {
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

  await check(`${prefix}read_document (found)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
    const doc = result.structuredContent;
    expect(!result.isError && doc?.id === documentId, JSON.stringify(result));
    expect(typeof doc.source === "string" && Number.isInteger(doc.revision), JSON.stringify(doc));
    return `"${doc.title}" revision ${doc.revision}`;
  });

  await check(`${prefix}read_document (absent)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: "no-such-document" } });
    expect(result.isError === true && result.content.length === 0, JSON.stringify(result));
    return "isError with no content";
  });
}

// A create_document draft in `repository` under a fresh idempotency key.
export function draft(key, repository) {
  return {
    idempotencyKey: key,
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
}

// create_document created, replayed, conflict and dialect issues, then
// read_document of the created one. Error results carry structuredContent
// (DIALECT.md §11.5: `{code}` or `{issues}`), each a variant of the output
// schema's `oneOf` (LIFECYCLE.md §5): `callError(name, args)` calls a tool
// whose result is one.
export async function createChecks(prefix, client, { draft, callError }) {
  let created;

  await check(`${prefix}create_document (created)`, async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    created = result.structuredContent;
    expect(!result.isError && created?.revision === 0, JSON.stringify(result));
    expect(/<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">/.test(created.source), created.source);
    expect(created.url === `/documents/${created.id}`, `url ${created.url}`);
    return `${created.id} at ${created.url}`;
  });

  await check(`${prefix}create_document (replayed)`, async () => {
    const result = await client.callTool({ name: "create_document", arguments: draft });
    expect(!result.isError && result.structuredContent?.id === created?.id, JSON.stringify(result));
    expect(result.structuredContent.source === created.source, "a replay must return the stored source");
    return `same document ${created.id}`;
  });

  await check(`${prefix}create_document (conflict)`, async () => {
    const result = await callError("create_document", { ...draft, title: "A changed title" });
    expect(result.isError === true && result.structuredContent?.code === "idempotency-conflict", JSON.stringify(result));
    return "idempotency-conflict";
  });

  await check(`${prefix}create_document (dialect issues)`, async () => {
    const result = await callError("create_document", {
      ...draft,
      idempotencyKey: `${draft.idempotencyKey}-issues`,
      plan: "<Chart />\n",
    });
    const issues = result.structuredContent?.issues ?? [];
    expect(result.isError === true && issues[0]?.code === "unknown-component", JSON.stringify(result));
    expect(issues[0].path === "root > Chart[0]" && issues[0].offset === 0, JSON.stringify(issues[0]));
    return issues.map((issue) => issue.code).join(", ");
  });

  await check(`${prefix}read_document (created)`, async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: created?.id } });
    expect(!result.isError && result.structuredContent?.source === created?.source, JSON.stringify(result));
    return `revision ${result.structuredContent.revision}`;
  });
}

// RFC 3339 in UTC with milliseconds, as the reference server stamps archives.
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// A plan's whole life (LIFECYCLE.md) through `client`'s plain `callTool`,
// which must read every answer (the error results too: each is a variant of
// the tool's `oneOf` output schema): a document created under `key` in
// `repository`, read with its brief; update_document updated, replayed, a
// revision-conflict naming the new revision and a plan with dialect issues;
// rename_document (a URL is no id: unavailable; by id, the title trimmed);
// archive_document (gone from the list and the update, read with its
// `archivedAt`) and restore_document; a list of `denied` (a repository the caller has no grant
// for) is `repository-forbidden`.
export async function lifecycleChecks(prefix, client, { repository, denied, key }) {
  const call = (name, args) => client.callTool({ name, arguments: args });
  const listed = async () => {
    const result = await call("list_documents", { repository });
    expect(!result.isError, JSON.stringify(result));
    return result.structuredContent.documents.map((doc) => doc.id);
  };
  let doc;
  let revised;

  await check(`${prefix}read_document (brief)`, async () => {
    const created = await call("create_document", draft(key, repository));
    expect(!created.isError, JSON.stringify(created));
    doc = created.structuredContent;
    const result = await call("read_document", { id: doc.id });
    const read = result.structuredContent;
    expect(!result.isError && read?.brief?.goal === "Create a collaborative plan.", JSON.stringify(result));
    expect(Object.keys(read).join() === "id,title,brief,source,revision,url", Object.keys(read).join());
    return `${doc.id}: brief read back`;
  });

  const update = {
    id: doc?.id,
    revision: 0,
    plan: '# Revised\n\n<Callout type="note">\nRevised through MCP.\n</Callout>\n',
    idempotencyKey: `${key}-update`,
  };

  await check(`${prefix}update_document (updated)`, async () => {
    const result = await call("update_document", update);
    revised = result.structuredContent;
    expect(!result.isError && revised?.id === doc.id && revised.revision === 1, JSON.stringify(result));
    expect(/<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">/.test(revised.source), revised.source);
    expect(revised.url === doc.url && revised.brief?.goal === doc.brief.goal, JSON.stringify(revised));
    return `revision ${revised.revision}`;
  });

  await check(`${prefix}update_document (replayed)`, async () => {
    const result = await call("update_document", update);
    expect(!result.isError && JSON.stringify(result.structuredContent) === JSON.stringify(revised), JSON.stringify(result));
    return "the same answer";
  });

  await check(`${prefix}update_document (revision-conflict)`, async () => {
    const result = await call("update_document", { ...update, idempotencyKey: `${key}-stale` });
    expect(result.isError === true, JSON.stringify(result));
    expect(JSON.stringify(result.structuredContent) === '{"code":"revision-conflict","revision":1}', JSON.stringify(result));
    expect(result.content[0].text === JSON.stringify(result.structuredContent), JSON.stringify(result.content));
    return "revision-conflict at 1";
  });

  await check(`${prefix}update_document (dialect issues)`, async () => {
    const result = await call("update_document", {
      ...update,
      revision: 1,
      plan: "<Chart />\n",
      idempotencyKey: `${key}-issues`,
    });
    const issues = result.structuredContent?.issues ?? [];
    expect(result.isError === true && issues[0]?.code === "unknown-component", JSON.stringify(result));
    expect(issues[0].path === "root > Chart[0]" && issues[0].offset === 0, JSON.stringify(issues[0]));
    const read = await call("read_document", { id: doc.id });
    expect(read.structuredContent?.revision === 1, `stored anyway: ${JSON.stringify(read)}`);
    return issues.map((issue) => issue.code).join(", ");
  });

  await check(`${prefix}rename_document (by id; a URL is no id)`, async () => {
    const byUrl = await call("rename_document", { id: doc.url, title: "Not by URL" });
    expect(byUrl.isError === true && byUrl.structuredContent?.code === "document-unavailable", JSON.stringify(byUrl));
    const result = await call("rename_document", { id: doc.id, title: "  Renamed through MCP  " });
    expect(!result.isError, JSON.stringify(result));
    expect(JSON.stringify(result.structuredContent) === JSON.stringify({ id: doc.id, title: "Renamed through MCP" }), JSON.stringify(result));
    return result.structuredContent.title;
  });

  await check(`${prefix}archive_document`, async () => {
    const result = await call("archive_document", { id: doc.id });
    const archived = result.structuredContent;
    expect(!result.isError && archived?.id === doc.id && archived.title === "Renamed through MCP", JSON.stringify(result));
    expect(TIMESTAMP.test(archived.archivedAt), `archivedAt ${archived.archivedAt}`);
    expect(!(await listed()).includes(doc.id), "still listed");
    const read = await call("read_document", { id: doc.id });
    expect(!read.isError && read.structuredContent?.archivedAt === archived.archivedAt, `read archived: ${JSON.stringify(read)}`);
    const stale = await call("update_document", { ...update, revision: 1, idempotencyKey: `${key}-archived` });
    expect(stale.isError === true && stale.structuredContent?.code === "document-archived", JSON.stringify(stale));
    return `at ${archived.archivedAt}`;
  });

  await check(`${prefix}restore_document`, async () => {
    const result = await call("restore_document", { id: doc.id });
    expect(!result.isError, JSON.stringify(result));
    expect(JSON.stringify(result.structuredContent) === JSON.stringify({ id: doc.id, title: "Renamed through MCP" }), JSON.stringify(result));
    expect((await listed()).includes(doc.id), "not listed again");
    const read = await call("read_document", { id: doc.id });
    expect(read.structuredContent?.revision === 1 && read.structuredContent.source === revised.source, JSON.stringify(read));
    return "listed and readable again";
  });

  await check(`${prefix}list_documents (repository-forbidden)`, async () => {
    const result = await call("list_documents", { repository: denied });
    expect(result.isError === true, JSON.stringify(result));
    expect(JSON.stringify(result.structuredContent) === '{"code":"repository-forbidden"}', JSON.stringify(result));
    return denied;
  });
}
