// Web Headers join repeated lines with ", ": a joined Origin or Host is
// refused as several lines are (no valid value holds a comma), through the
// handler and through Endpoint alike.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { memoryHost, post } from "./support/host.mjs";

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const options = { caller: () => "octocat", documents: memoryHost().reader, allowedOrigins: ["https://app.example"], allowedHosts: ["mcp.example"] };

test("one allowed Origin and Host pass", async () => {
  const response = await handler(options)(post(ping, { origin: "https://app.example", host: "mcp.example" }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("access-control-allow-origin"), "https://app.example");
});

test("a joined Origin is refused, even of allowed values", async () => {
  const headers = new Headers({ authorization: "Bearer allowed", "content-type": "application/json", host: "mcp.example" });
  headers.append("origin", "https://app.example");
  headers.append("origin", "https://app.example");
  assert.equal(headers.get("origin"), "https://app.example, https://app.example");
  const response = await handler(options)(new Request("http://mcp.example/mcp", { method: "POST", headers, body: JSON.stringify(ping) }));
  assert.equal(response.status, 403);
  assert.equal(await response.text(), "origin is not allowed");
  assert.equal(response.headers.get("access-control-allow-origin"), null);
});

test("a joined Host is refused, even of allowed values", async () => {
  const headers = new Headers({ authorization: "Bearer allowed", "content-type": "application/json" });
  headers.append("host", "mcp.example");
  headers.append("host", "mcp.example");
  const response = await handler(options)(new Request("http://mcp.example/mcp", { method: "POST", headers, body: JSON.stringify(ping) }));
  assert.equal(response.status, 403);
  assert.equal(await response.text(), "host is not allowed");
});

test("through Endpoint: several lines, a joined value, or an array are refused alike", () => {
  const endpoint = new Endpoint({ allowedOrigins: ["https://app.example"], allowedHosts: ["mcp.example"] });
  const refusals = [
    ["Host", "mcp.example", "Origin", "https://app.example", "Origin", "https://app.example"],
    ["Host", "mcp.example", "Origin", "https://app.example, https://app.example"],
    { host: "mcp.example", origin: ["https://app.example", "https://app.example"] },
    ["Host", "mcp.example", "Host", "mcp.example"],
    { host: "mcp.example, mcp.example" },
  ];
  for (const headers of refusals) {
    const step = endpoint.begin("POST", headers);
    assert.equal(step.kind, "respond", JSON.stringify(headers));
    assert.equal(step.status, 403, JSON.stringify(headers));
  }
  assert.equal(endpoint.begin("POST", ["Host", "mcp.example", "Origin", "https://app.example"]).kind, "authenticate");
});
