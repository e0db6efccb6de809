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

/**
 * The host: `tokens` maps a bearer token to its caller. Documents live in
 * `documents` (id → { repository, document }); every call is recorded in
 * `calls` as [name, caller, argument].
 */
export function memoryHost({ tokens = { allowed: "octocat" } } = {}) {
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
        return [...documents.values()]
          .filter((entry) => entry.repository === repository)
          .map(({ document }) => ({ id: document.id, title: document.title }));
      },
      async read(caller, id) {
        calls.push(["read", caller, id]);
        const entry = documents.get(id);
        return entry && { ...entry.document };
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

/** True under Bun. */
export const isBun = typeof Bun !== "undefined";
