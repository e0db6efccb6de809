// A Bun.serve server on chopin-mcp's handler, with plans kept in memory:
// list, read, create and update, and the `/documents/<id>` URL a create or
// read answers.
//
//   bun examples/bun-serve.mjs [--port 8080] [--token secret=octocat]...
//
// serves MCP at http://127.0.0.1:PORT/mcp to the callers the tokens name
// (`Authorization: Bearer secret` is `octocat` unless a --token is given).
// `memoryHost()` is the part to replace with your store; `serve()` is what a
// test starts on a free port.
import { handler } from "chopin-mcp";

/**
 * A host keeping documents in memory. Every caller may read and write every
 * repository (a real host checks its grants here). Creates key on caller +
 * idempotency key, updates on caller + idempotency key apart from them; an
 * update keeps the revision it replaces in the document's `history`.
 */
export function memoryHost({ newId = () => crypto.randomUUID() } = {}) {
  const documents = new Map(); // id → { repository, document, history }
  const creates = new Map(); // caller \0 key → { fingerprint, id }
  const updates = new Map(); // caller \0 key → { fingerprint, document }

  // A locator is an id, or a URL ending in /documents/<id>.
  const find = (locator) => {
    const marker = locator.lastIndexOf("/documents/");
    const id = marker < 0 ? locator : decodeURIComponent(locator.slice(marker + "/documents/".length));
    return documents.get(id);
  };
  const answered = ({ document }) => ({ ...document });

  return {
    documents: {
      list(caller, repository, includeArchived) {
        const summaries = [];
        for (const entry of documents.values()) {
          if (entry.repository !== repository || (entry.document.archivedAt && !includeArchived)) continue;
          const { id, title, archivedAt } = entry.document;
          summaries.push(archivedAt ? { id, title, archivedAt } : { id, title });
        }
        return summaries;
      },
      read(caller, id) {
        const entry = find(id);
        return entry && answered(entry);
      },
    },
    create: {
      create(caller, input, client) {
        const key = `${caller}\0${input.idempotencyKey}`;
        const earlier = creates.get(key);
        if (earlier) {
          if (earlier.fingerprint !== input.fingerprint) return { kind: "conflict" };
          return { kind: "replayed", document: answered(documents.get(earlier.id)) };
        }
        const id = newId();
        const document = {
          id,
          title: input.title,
          brief: input.brief,
          source: input.plan,
          revision: 0,
          url: `/documents/${encodeURIComponent(id)}`,
        };
        documents.set(id, { repository: input.repository, document, history: [], createdBy: [caller, client] });
        creates.set(key, { fingerprint: input.fingerprint, id });
        return { kind: "created", document: { ...document } };
      },
    },
    update: {
      update(caller, input, client) {
        const entry = find(input.id);
        if (!entry) return { kind: "unavailable" };
        const key = `${caller}\0${input.idempotencyKey}`;
        const earlier = updates.get(key);
        if (earlier) {
          if (earlier.fingerprint !== input.fingerprint) return { kind: "conflict" };
          return { kind: "replayed", document: { ...earlier.document } };
        }
        if (entry.document.archivedAt) return { kind: "archived" };
        if (entry.document.revision !== input.revision) {
          return { kind: "revision-conflict", revision: entry.document.revision };
        }
        // What an update replaces is kept.
        entry.history.push({ revision: entry.document.revision, source: entry.document.source, by: [caller, client] });
        entry.document = { ...entry.document, source: input.plan, revision: entry.document.revision + 1 };
        updates.set(key, { fingerprint: input.fingerprint, document: { ...entry.document } });
        return { kind: "updated", document: { ...entry.document } };
      },
    },
  };
}

/** Starts the server; `tokens` maps a bearer token to its caller. */
export function serve({ port = 8080, tokens = new Map([["secret", "octocat"]]), host = memoryHost() } = {}) {
  const bearer = (request) => {
    const authorization = request.headers.get("authorization") ?? "";
    return authorization.startsWith("Bearer ") ? tokens.get(authorization.slice(7)) : undefined;
  };
  return Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch: handler({
      caller: bearer, // undefined → 401
      ...host,
      loopbackHosts: true,
    }),
  });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  let port = 8080;
  const tokens = new Map();
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--port" && /^\d+$/.test(value ?? "")) port = Number(value);
    else if (flag === "--token" && value?.includes("=")) {
      const at = value.indexOf("=");
      tokens.set(value.slice(0, at), value.slice(at + 1));
    } else {
      console.error("usage: bun examples/bun-serve.mjs [--port 8080] [--token TOKEN=CALLER]...");
      process.exit(2);
    }
  }
  if (tokens.size === 0) tokens.set("secret", "octocat");
  const server = serve({ port, tokens });
  console.log(`chopin-mcp listening on http://127.0.0.1:${server.port}/mcp`);
}
