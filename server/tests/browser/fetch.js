// The MCP endpoint driven with plain `fetch` from an allowed origin. Every
// request carries `Authorization` and `content-type: application/json`, so
// the browser sends a CORS preflight first and the server must grant it.
import { check, documentId, expect, finish, mcp, token } from "./checks.js";

const VERSION = "2025-11-25";

async function post(message, bearer = token) {
  return fetch(mcp, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
}

async function call(id, method, params) {
  const response = await post({ id, method, params });
  const body = await response.text();
  expect(response.status === 200, `${method}: status ${response.status}: ${body}`);
  const reply = JSON.parse(body);
  expect(reply.id === id && reply.result, `${method}: ${JSON.stringify(reply)}`);
  return reply.result;
}

await check("initialize", async () => {
  const result = await call(1, "initialize", {
    protocolVersion: VERSION,
    capabilities: {},
    clientInfo: { name: "chopin-browser-fetch", version: "1.0.0" },
  });
  expect(result.serverInfo?.name === "chopin", `serverInfo ${JSON.stringify(result.serverInfo)}`);
  expect(result.capabilities?.tools, "no tools capability");
  return `${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion}`;
});

await check("notifications/initialized", async () => {
  const response = await post({ method: "notifications/initialized" });
  expect(response.status === 202, `status ${response.status}`);
  return "202";
});

await check("tools/list", async () => {
  const { tools } = await call(2, "tools/list", {});
  const names = tools.map((tool) => tool.name);
  expect(names.includes("read_document"), `read_document missing from ${names}`);
  return names.join(", ");
});

await check("read_document (found)", async () => {
  const result = await call(3, "tools/call", { name: "read_document", arguments: { id: documentId } });
  const doc = result.structuredContent;
  expect(!result.isError && doc?.id === documentId, JSON.stringify(result));
  return `"${doc.title}" revision ${doc.revision}`;
});

await check("wrong token: 401 with a readable www-authenticate", async () => {
  const response = await post({ id: 4, method: "tools/list" }, "not-a-token");
  expect(response.status === 401, `status ${response.status}`);
  const challenge = response.headers.get("www-authenticate");
  expect(challenge?.startsWith("Bearer"), `www-authenticate is ${JSON.stringify(challenge)} (not exposed?)`);
  return challenge;
});

finish();
