// Random requests for the crash tests: methods, headers and bodies drawn
// from what clients send and what they get wrong, mutated, in random
// chunkings. Deterministic: a seeded generator (mulberry32).
import { DOCUMENT, DRAFT, REPOSITORY, REVISION } from "./host.mjs";

export function generator(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (items) => items[int(items.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const MESSAGES = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: "p", method: "ping" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_documents", arguments: { repository: REPOSITORY } } },
  { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "read_document", arguments: { id: DOCUMENT.id } } },
  { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "read_document", arguments: { id: "😀".repeat(129) } } },
  { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "create_document", arguments: DRAFT } },
  { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_document", arguments: { ...DRAFT, plan: "<Chart />\n" } } },
  { jsonrpc: "2.0", id: 8, method: "server/discover", params: { _meta: META } },
  { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "read_document", arguments: { id: DOCUMENT.id }, _meta: META } },
  [{ jsonrpc: "2.0", id: 10, method: "ping" }, { jsonrpc: "2.0", id: 11, method: "tools/list" }],
  { jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "update_document", arguments: { ...REVISION } } },
  { jsonrpc: "2.0", id: 13, method: "tools/call", params: { name: "rename_document", arguments: { id: DOCUMENT.id, title: " Renamed " } } },
  { jsonrpc: "2.0", id: 14, method: "tools/call", params: { name: "archive_document", arguments: { id: DOCUMENT.id } } },
  { jsonrpc: "2.0", id: 15, method: "tools/call", params: { name: "restore_document", arguments: { id: `/documents/${DOCUMENT.id}` } } },
  { jsonrpc: "2.0", id: 16, method: "tools/call", params: { name: "list_documents", arguments: { repository: "octo/secret" } } },
  { jsonrpc: "1.0", id: { a: 1 }, method: 7 },
];
const HEADER_VALUES = {
  authorization: ["Bearer allowed", "Bearer allowed", "Bearer allowed", "Bearer allowed", "Bearer allowed", "Bearer scoped", "Bearer unavailable", "Bearer nobody", "Basic YTpi", "", "Bearer "],
  "content-type": ["application/json", "application/json", "application/json", "application/json", "application/json; charset=utf-8", "text/plain", "", "application/json, text/html"],
  accept: ["application/json, text/event-stream", "application/json, text/event-stream", "application/json, text/event-stream", "text/event-stream", "application/json", "*/*;q=0", "text/event-stream;q=0.5, application/json;q=0", "x/y;q=2", ""],
  origin: ["https://app.example", "https://app.example", "http://localhost:5173", "null", "https://app.example, https://app.example", "https://evil.example"],
  host: [...Array(8).fill("127.0.0.1"), "localhost:8080", "localhost:8080", "evil.example", "localhost, localhost", ""],
  "mcp-protocol-version": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01", " "],
  "mcp-method": ["tools/call", "tools/list", "server/discover", "nope"],
  "mcp-name": ["read_document", "list_documents", "update_document", "x"],
  "access-control-request-method": ["POST", "GET"],
  "content-length": ["0", "12", "65536", "65537", "786433", "99999999999999999999999", "abc", "-1", "10, 10"],
  "x-other": ["\u00e9t\u00e9", "a".repeat(3000)],
};

function mutate(random, text) {
  const bytes = new TextEncoder().encode(text);
  switch (random.int(9)) {
    case 0:
      return bytes.subarray(0, random.int(bytes.length + 1));
    case 1: {
      const copy = bytes.slice();
      for (let i = 0; i < 1 + random.int(4); i++) copy[random.int(copy.length)] = random.int(256);
      return copy;
    }
    case 2:
      return Uint8Array.from({ length: random.int(200) }, () => random.int(256));
    case 3:
      return new TextEncoder().encode("[".repeat(1 + random.int(20_000)));
    case 4:
      return new TextEncoder().encode(text.replace(/"[^"]*"/, `"${"\u{1F600}\u0000\\u0000\\ud800".repeat(random.int(50))}"`));
    case 5:
      return new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(60_000 + random.int(20_000)) } }));
    case 6:
      return new Uint8Array(0);
    default:
      return bytes;
  }
}

/** One random request: { method, headers: [name, value, …], chunks: Uint8Array[] | undefined }. */
export function randomRequest(random) {
  const method = random.chance(0.8) ? "POST" : random.pick(["GET", "GET", "GET", "OPTIONS", "PUT", "DELETE", "HEAD"]);
  const headers = [];
  for (const [name, values] of Object.entries(HEADER_VALUES)) {
    const likely = ["authorization", "content-type", "accept", "host"].includes(name) ? 0.95 : 0.1;
    if (random.chance(likely)) headers.push(name, random.pick(values));
  }
  if (method === "GET" || method === "HEAD") return { method, headers, chunks: undefined };
  const message = random.pick(MESSAGES);
  const body = mutate(random, JSON.stringify(message));
  const chunks = [];
  if (random.chance(0.5) || body.length === 0) {
    chunks.push(body);
  } else {
    for (let at = 0; at < body.length; ) {
      const size = 1 + random.int(random.chance(0.5) ? 16 : 40_000);
      chunks.push(body.subarray(at, at + size));
      at += size;
    }
  }
  return { method, headers, chunks };
}

/** The statuses the endpoint answers with. */
export const STATUSES = new Set([200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 503]);
