// The official MCP TypeScript clients the repository's interop tests pin
// (server/tests/interop: SDK 1.32.2, handshake era; server/tests/interop-v2:
// @modelcontextprotocol/client 2.4.0, 2026-07-28), run with Node against a
// URL. Their installs come from `npm ci` in those folders (.ci/run does it).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const tests = fileURLToPath(new URL("../../../../server/tests/", import.meta.url));
const CLIENTS = [
  { script: `${tests}interop/interop.mjs`, install: `${tests}interop/node_modules/@modelcontextprotocol/sdk`, passed: "interop: all checks passed" },
  { script: `${tests}interop-v2/modern.mjs`, install: `${tests}interop-v2/node_modules/@modelcontextprotocol/client`, passed: "interop v2: all checks passed" },
];

/**
 * Why the client tests cannot run here, or undefined when they can. Under
 * CI=true a missing install is a failure, not a skip.
 */
export function clientsMissing() {
  const missing = CLIENTS.filter((client) => !existsSync(client.install)).map((client) => client.install);
  if (missing.length === 0) return undefined;
  const why = `the MCP clients are not installed (${missing.join(", ")}): run npm ci in server/tests/interop and server/tests/interop-v2`;
  if (process.env.CI === "true") throw new Error(why);
  return why;
}

/** Runs one client script against `url`; resolves with its output. */
function runClient(client, url, token) {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [client.script, url, token], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && output.includes(client.passed)) resolve(output);
      else reject(new Error(`${client.script} exited ${code}:\n${output}`));
    });
  });
}

/** Both clients against `url` (initialize or discover, tools/list, list, read, create). */
export async function runBothEras(url, token = "allowed") {
  const outputs = [];
  for (const client of CLIENTS) outputs.push(await runClient(client, url, token));
  return outputs;
}

/**
 * The handshake-era SDK client (1.32.2, which validates structuredContent
 * against each tool's outputSchema, error results too) in this process:
 * update_document of `update` and list_documents of the denied `repository`;
 * resolves with the two results.
 */
export async function lifecycleCalls(url, { update, repository }, token = "allowed") {
  const sdk = `${tests}interop/node_modules/@modelcontextprotocol/sdk/dist/esm/client/`;
  const { Client } = await import(pathToFileURL(`${sdk}index.js`).href);
  const { StreamableHTTPClientTransport } = await import(pathToFileURL(`${sdk}streamableHttp.js`).href);
  const client = new Client({ name: "chopin-lifecycle", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  try {
    const updated = await client.callTool({ name: "update_document", arguments: update });
    const denied = await client.callTool({ name: "list_documents", arguments: { repository } });
    return { updated, denied };
  } finally {
    await client.close();
  }
}
