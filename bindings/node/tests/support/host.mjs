// An in-memory host for the tests: one seeded document, bearer tokens,
// and creation keyed on caller + idempotency key as docs/embedding.md asks.
export const DOCUMENT = Object.freeze({
  id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4",
  title: "Release readiness",
  source: "# Release readiness\n",
  revision: 4,
});
export const REPOSITORY = "githubnext/chopin";

/** A draft create_document accepts (the interop checks' own). */
export const DRAFT = Object.freeze({
  idempotencyKey: "create-plan-1",
  repository: REPOSITORY,
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
});

/** An update update_document accepts, of DOCUMENT (LIFECYCLE.md §2's first fingerprint vector). */
export const REVISION = Object.freeze({
  id: DOCUMENT.id,
  revision: DOCUMENT.revision,
  plan: "# Revised\n\nUpdated prose.\n",
  idempotencyKey: "update-plan-1",
});
export const REVISION_FINGERPRINT = "2465e740e953d416d664661bf4064354c397b6afe602aadab4556d012ab03970";
/** The time the memory host archives at (the endpoint has no clock). */
export const ARCHIVED_AT = "2026-08-23T12:34:56.000Z";

/**
 * The host: `tokens` maps a bearer token to its caller. Documents live in
 * `documents` (id → { repository, document }); every call is recorded in
 * `calls` as [name, caller, argument].
 */
export function memoryHost({ tokens = { allowed: "octocat" }, denied = [] } = {}) {
  const documents = new Map([[DOCUMENT.id, { repository: REPOSITORY, document: { ...DOCUMENT } }]]);
  const keys = new Map();
  const calls = [];
  let minted = 0;
  return {
    calls,
    documents,
    /** The caller of an `Authorization` value, or undefined. */
    callerOf(authorization) {
      const token = typeof authorization === "string" && authorization.startsWith("Bearer ") ? authorization.slice(7) : "";
      return Object.hasOwn(tokens, token) ? tokens[token] : undefined;
    },
    reader: {
      async list(caller, repository) {
        calls.push(["list", caller, repository]);
        if (denied.includes(repository)) return "forbidden";
        return [...documents.values()]
          .filter((entry) => entry.repository === repository && entry.archivedAt === undefined)
          .map(({ document }) => ({ id: document.id, title: document.title }));
      },
      async read(caller, id) {
        calls.push(["read", caller, id]);
        const entry = documents.get(id);
        return entry && entry.archivedAt === undefined ? { ...entry.document } : undefined;
      },
    },
    // The lifecycle as LIFECYCLE.md's reference server does it (ids only).
    updater: {
      async update(caller, input) {
        calls.push(["update", caller, input]);
        const entry = documents.get(input.id);
        if (!entry) return { kind: "unavailable" };
        const key = `update\0${caller}\0${input.idempotencyKey}`;
        const stored = keys.get(key);
        if (stored) {
          return stored.fingerprint === input.fingerprint ? { kind: "replayed", document: stored.document } : { kind: "conflict" };
        }
        if (entry.archivedAt !== undefined) return { kind: "archived" };
        if (entry.document.revision !== input.revision) return { kind: "revision-conflict", revision: entry.document.revision };
        entry.document = { ...entry.document, source: input.plan, revision: input.revision + 1 };
        const { id, title, source, revision } = entry.document;
        const document = { id, title, source, revision, url: `/documents/${id}` };
        keys.set(key, { fingerprint: input.fingerprint, document });
        return { kind: "updated", document };
      },
    },
    renamer: {
      async rename(caller, input) {
        calls.push(["rename", caller, input]);
        const entry = documents.get(input.id);
        if (!entry) return { kind: "unavailable" };
        if (entry.archivedAt !== undefined) return { kind: "archived" };
        entry.document = { ...entry.document, title: input.title };
        return { kind: "renamed", document: { id: input.id, title: input.title } };
      },
    },
    archiver: {
      async archive(caller, id) {
        calls.push(["archive", caller, id]);
        const entry = documents.get(id);
        if (!entry) return { kind: "unavailable" };
        entry.archivedAt ??= ARCHIVED_AT;
        return { kind: "archived", document: { id, title: entry.document.title, archivedAt: entry.archivedAt } };
      },
    },
    restorer: {
      async restore(caller, id) {
        calls.push(["restore", caller, id]);
        const entry = documents.get(id);
        if (!entry) return { kind: "unavailable" };
        entry.archivedAt = undefined;
        return { kind: "restored", document: { id, title: entry.document.title } };
      },
    },
    creator: {
      async create(caller, input) {
        calls.push(["create", caller, input]);
        const key = `${caller}\0${input.idempotencyKey}`;
        const stored = keys.get(key);
        if (stored) {
          return stored.fingerprint === input.fingerprint ? { kind: "replayed", document: stored.document } : { kind: "conflict" };
        }
        const id = `created-${++minted}`;
        const document = { id, title: input.title, brief: input.brief, source: input.plan, revision: 0, url: `/documents/${id}` };
        keys.set(key, { fingerprint: input.fingerprint, document });
        documents.set(id, { repository: input.repository, document: { id, title: input.title, source: input.plan, revision: 0 } });
        return { kind: "created", document };
      },
    },
  };
}

/** A JSON-RPC POST to an in-process handler. */
export function post(body, headers = {}) {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { authorization: "Bearer allowed", "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** tools/call of `name` with `args`. */
export function call(name, args, id = 1) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** The result of a JSON-RPC POST of `body` to `mcp` (a handler). */
export async function resultOf(mcp, body, headers) {
  const response = await mcp(post(body, headers));
  const reply = await response.json();
  return reply.result ?? reply.error;
}

/** The options of a handler over `host` offering every tool. */
export function readWrite(host) {
  return {
    caller: (request) => host.callerOf(request.headers.get("authorization")),
    documents: host.reader,
    create: host.creator,
    update: host.updater,
    rename: host.renamer,
    archive: host.archiver,
    restore: host.restorer,
  };
}

/** True under Bun. */
export const isBun = typeof Bun !== "undefined";
