// A node:http server on chopin-mcp's Endpoint: the effect loop in
// JavaScript, with no Web Request or Response made.
//
//   node examples/node-http.mjs [--port 8080] [--token secret=octocat]...
//
// serves MCP at every path of 127.0.0.1:PORT, with one document in memory
// (`f401c8d6-3717-4f1d-8473-cfdd0af894e4` in githubnext/chopin) and
// creation. `listener(endpoint, host)` is the part to copy: the tests drive
// it with the official MCP clients.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { Endpoint, KEEP_ALIVE } from "chopin-mcp";

/**
 * The request listener. `host` is `{ caller(authorization), list(caller,
 * repository), read(caller, id), create(caller, input) }` and, for an
 * endpoint that offers them, `update(caller, input)`, `rename(caller,
 * input)`, `archive(caller, id)`, `restore(caller, id)`; each sync or async.
 * A host function that throws gets the request a 500.
 */
export function listener(endpoint, host, { keepAliveMs = 15_000, onError = console.error } = {}) {
  return async (req, res) => {
    let step;
    try {
      // Protected Resource Metadata (with `oauth`), before routing anywhere else.
      const metadata = endpoint.metadata(req.method, req.url, req.rawHeaders);
      if (metadata) {
        res.writeHead(metadata.status, metadata.headers).end(req.method === "HEAD" ? undefined : metadata.body);
        return;
      }
      step = endpoint.begin(req.method, req.rawHeaders);
      while (step.kind !== "respond") {
        switch (step.kind) {
          case "authenticate":
            step = step.answer(await host.caller(req.headers.authorization));
            break;
          case "body":
            step = await step.readFrom(req);
            break;
          case "list":
            step = step.answer(await host.list(step.caller, step.repository));
            break;
          case "read":
            step = step.answer(await host.read(step.caller, step.id));
            break;
          case "create":
            step = step.answer(await host.create(step.caller, step.input));
            break;
          case "update":
            step = step.answer(await host.update(step.caller, step.input));
            break;
          case "rename":
            step = step.answer(await host.rename(step.caller, step.input));
            break;
          case "archive":
            step = step.answer(await host.archive(step.caller, step.id));
            break;
          case "restore":
            step = step.answer(await host.restore(step.caller, step.id));
            break;
        }
      }
    } catch (error) {
      step?.abandon();
      onError(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end("internal error");
      return;
    }
    // A body refused at the budget was not read to its end: close the
    // connection instead of reading the rest.
    if (!req.complete) res.setHeader("connection", "close");
    res.writeHead(step.status, step.headers);
    if (!step.stream) {
      res.end(step.body);
      return;
    }
    // An accepted GET: an event stream held open with keep-alive comments.
    res.write(KEEP_ALIVE);
    const timer = setInterval(() => res.write(KEEP_ALIVE), keepAliveMs);
    res.on("close", () => clearInterval(timer));
  };
}

/** One document in memory, bearer tokens, and idempotent creation. */
export function exampleHost(tokens) {
  const documents = new Map([
    ["f401c8d6-3717-4f1d-8473-cfdd0af894e4", {
      repository: "githubnext/chopin",
      document: { id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4", title: "Release readiness", source: "# Release readiness\n", revision: 0 },
    }],
  ]);
  const creations = new Map();
  return {
    caller(authorization) {
      const token = authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
      return token === undefined ? undefined : tokens.get(token);
    },
    list(_caller, repository) {
      return [...documents.values()]
        .filter((entry) => entry.repository === repository)
        .map(({ document }) => ({ id: document.id, title: document.title }));
    },
    read(_caller, id) {
      return documents.get(id)?.document;
    },
    create(caller, input) {
      const key = JSON.stringify([caller, input.idempotencyKey]);
      const earlier = creations.get(key);
      if (earlier) {
        return earlier.fingerprint === input.fingerprint ? { kind: "replayed", document: earlier.document } : { kind: "conflict" };
      }
      const id = crypto.randomUUID();
      const document = { id, title: input.title, brief: input.brief, source: input.plan, revision: 0, url: `/documents/${id}` };
      creations.set(key, { fingerprint: input.fingerprint, document });
      documents.set(id, { repository: input.repository, document: { id, title: input.title, source: input.plan, revision: 0 } });
      return { kind: "created", document };
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let port = 8080;
  const tokens = new Map();
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--port") port = Number(args[i + 1]);
    else if (args[i] === "--token" && args[i + 1]?.includes("=")) {
      const [token, caller] = args[i + 1].split("=", 2);
      tokens.set(token, caller);
    } else {
      console.error("usage: node examples/node-http.mjs [--port PORT] [--token TOKEN=CALLER]...");
      process.exit(2);
    }
  }
  if (tokens.size === 0) tokens.set("secret", "octocat");
  const endpoint = new Endpoint({ create: true, loopbackHosts: true });
  const server = createServer(listener(endpoint, exampleHost(tokens)));
  server.listen(port, "127.0.0.1", () => console.log(`MCP on http://127.0.0.1:${server.address().port}/mcp`));
}
