// The endpoint settings: each takes effect as the crate's Config setting
// does, and a bad one is a TypeError when the handler (or Endpoint) is made.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DOCUMENT, call, memoryHost, post } from "./support/host.mjs";

const base = () => ({ caller: () => "octocat", documents: memoryHost().reader });
const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const modern = (method, params = {}) => ({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } });
const modernHeaders = (method, name) => ({ "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) });

test("each bad option is a TypeError when the handler is made, naming it", () => {
  for (const [options, says] of [
    [undefined, /options object/],
    [{ ...base(), caller: "octocat" }, /`caller` must be a function/],
    [{ ...base(), documents: { list() {} } }, /`documents` must be/],
    [{ ...base(), create: { make() {} } }, /`create` must be/],
    [{ ...base(), serverName: 7 }, /`serverName` must be a string/],
    [{ ...base(), allowedOrigins: "https://a.example" }, /`allowedOrigins` must be an array of strings/],
    [{ ...base(), allowedOrigins: ["https://a.example, https://b.example"] }, /comma/],
    [{ ...base(), allowedOrigins: ["https://a.example/\n"] }, /allow_origin cannot be used in a response header/],
    [{ ...base(), allowedHosts: [""] }, /allowedHosts/],
    [{ ...base(), loopbackHosts: "yes" }, /`loopbackHosts` must be true or false/],
    [{ ...base(), protocolVersions: ["2025-01-01"] }, /2025-01-01.*2024-11-05, 2025-03-26/],
    [{ ...base(), protocolVersions: [] }, /at least one protocol version/],
    [{ ...base(), bodyBudget: 0 }, /`bodyBudget` must be a whole number of bytes from 1/],
    [{ ...base(), bodyBudget: 1.5 }, /`bodyBudget`/],
    [{ ...base(), cacheTtlMs: 2 ** 53 }, /`cacheTtlMs`/],
    [{ ...base(), oauth: { resource: "https://mcp.example/mcp" } }, /`oauth` must be/],
    [{ ...base(), oauth: { resource: "ftp://mcp.example/mcp", issuer: "https://login.example" } }, /resource must be an https URL/],
    [{ ...base(), scopes: { read: "chopin read", create: "c" } }, /scope token/],
    [{ ...base(), scopes: { read: "same", create: "same" } }, /equals the read scope/],
    [{ ...base(), resourceMetadata: 'https://x/"' }, /resource_metadata/],
    [{ ...base(), keepAliveMs: 0 }, /`keepAliveMs`/],
    [{ ...base(), crate: true }, /unknown option `crate`/],
  ]) {
    assert.throws(() => handler(options), (error) => error instanceof TypeError && says.test(error.message), String(says));
  }
  assert.throws(() => new Endpoint({ create: {} }), /`create` must be true or false/);
  assert.throws(() => new Endpoint({ caller: () => 1 }), /unknown option `caller`/);
});

test("server name, version, title and instructions are initialize's", async () => {
  const mcp = handler({ ...base(), serverName: "plans", serverVersion: "9.9.9", serverTitle: "Plans", instructions: "Read plans." });
  const { result } = await (await mcp(post(initialize))).json();
  assert.deepEqual(result.serverInfo, { name: "plans", title: "Plans", version: "9.9.9" });
  assert.equal(result.instructions, "Read plans.");
});

test("protocolVersions limits the revisions served", async () => {
  const mcp = handler({ ...base(), protocolVersions: ["2025-03-26"] });
  const refused = await mcp(post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "2025-06-18" }));
  assert.equal(refused.status, 400);
  const served = await mcp(post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "2025-03-26" }));
  assert.equal(served.status, 200);
});

test("allowedOrigins grants CORS to the origins listed and refuses others", async () => {
  const mcp = handler({ ...base(), allowedOrigins: ["https://app.example"] });
  const granted = await mcp(post(call("read_document", { id: DOCUMENT.id }), { origin: "https://app.example" }));
  assert.equal(granted.status, 200);
  assert.equal(granted.headers.get("access-control-allow-origin"), "https://app.example");
  assert.equal(granted.headers.get("vary"), "origin");
  const refused = await mcp(post(call("read_document", { id: DOCUMENT.id }), { origin: "http://app.example" }));
  assert.equal(refused.status, 403);
  assert.equal(await refused.text(), "origin is not allowed");
  const preflight = await mcp(
    new Request("http://127.0.0.1/mcp", { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } }),
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, POST");
});

test("allowedHosts and loopbackHosts guard the Host header", async () => {
  const hosts = handler({ ...base(), allowedHosts: ["mcp.example"] });
  assert.equal((await hosts(post(initialize, { host: "mcp.example:8443" }))).status, 200);
  const other = await hosts(post(initialize, { host: "evil.example" }));
  assert.equal(other.status, 403);
  assert.equal(await other.text(), "host is not allowed");
  const loopback = handler({ ...base(), loopbackHosts: true });
  const local = await loopback(post(initialize, { host: "127.0.0.1:3000", origin: "http://localhost:5173" }));
  assert.equal(local.status, 200);
  assert.equal(local.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.equal((await loopback(post(initialize, { host: "example.com" }))).status, 403);
});

test("bodyBudget is the most body bytes a request may carry", async () => {
  const mcp = handler({ ...base(), bodyBudget: 100 });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(40) } });
  assert.equal((await mcp(post(body))).status, 200);
  const over = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(70) } });
  assert.equal((await mcp(post(over))).status, 413);
  assert.equal(new Endpoint({ bodyBudget: 100 }).bodyBudget, 100);
  assert.equal(new Endpoint().bodyBudget, 65536);
  assert.equal(new Endpoint({ create: true }).bodyBudget, 786432);
});

test("cacheTtlMs is the modern tools/list's ttlMs", async () => {
  const mcp = handler({ ...base(), cacheTtlMs: 1234 });
  const listed = await (await mcp(post(modern("tools/list"), modernHeaders("tools/list")))).json();
  assert.equal(listed.result.ttlMs, 1234);
  assert.equal(listed.result.cacheScope, "public");
});

test("oauth serves Protected Resource Metadata and names it in 401s", async () => {
  const mcp = handler({
    caller: () => undefined,
    documents: memoryHost().reader,
    oauth: { resource: "https://mcp.example/mcp", issuer: "https://login.example" },
  });
  const metadata = await mcp(new Request("https://mcp.example/.well-known/oauth-protected-resource/mcp"));
  assert.equal(metadata.status, 200);
  assert.deepEqual(await metadata.json(), {
    resource: "https://mcp.example/mcp",
    authorization_servers: ["https://login.example"],
    scopes_supported: ["chopin:read", "chopin:create", "chopin:write"],
    bearer_methods_supported: ["header"],
  });
  const refused = await mcp(post(initialize));
  assert.equal(refused.status, 401);
  assert.equal(
    refused.headers.get("www-authenticate"),
    'Bearer error="invalid_token", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="chopin:read"',
  );
  const endpoint = new Endpoint({ oauth: { resource: "https://mcp.example/mcp", issuer: "https://login.example" } });
  const answered = endpoint.metadata("GET", "/.well-known/oauth-protected-resource/mcp", []);
  assert.equal(answered.status, 200);
  assert.equal(answered.headers["access-control-allow-origin"], "*");
  assert.equal(JSON.parse(answered.body).resource, "https://mcp.example/mcp");
  assert.equal(endpoint.metadata("POST", "/mcp", []), undefined);
});

test("scopes renames the scopes; resourceMetadata names another metadata URL", async () => {
  const mcp = handler({
    caller: () => undefined,
    documents: memoryHost().reader,
    scopes: { read: "plans:read", create: "plans:write" },
    resourceMetadata: "https://meta.example/prm",
  });
  const refused = await mcp(post(initialize, { authorization: "Basic x" }));
  assert.equal(refused.headers.get("www-authenticate"), 'Bearer resource_metadata="https://meta.example/prm", scope="plans:read"');
});
