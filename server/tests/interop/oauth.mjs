// The official MCP TypeScript SDK client signing in with OAuth, headlessly,
// against a chopin-mcp server protected by a real authorization server
// (server/tests/oauth/as.mjs):
//
//   node oauth.mjs flow|step-up URL DOCUMENT_ID REPOSITORY
//
// An `OAuthClientProvider` keeps everything in memory; its
// `redirectToAuthorization` follows the authorization server's redirects
// itself (keeping cookies), as a browser would with a user who approves,
// until the redirect to the client's callback, and hands the code back.
//
// - `flow`: 401 → protected resource metadata → AS metadata → dynamic
//   registration → authorization with PKCE (S256) and `resource` → token →
//   initialize, tools/list, list_documents, read_document, create_document.
//   Every request the SDK sends is recorded and checked in order.
// - `step-up`: the first token carries only the read scope the 401 names;
//   create_document meets 403 `insufficient_scope`, the SDK authorizes again
//   with both scopes (same client), and the create then succeeds.
//
// Prints one line per check ("ok ..." or "FAIL ...") and exits non-zero when
// any check fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, draft, expect, finish } from "./checks.mjs";

const [mode, url, documentId, repository] = process.argv.slice(2);
if (!["flow", "step-up"].includes(mode) || !url || !documentId || !repository) {
  console.error("usage: node oauth.mjs flow|step-up URL DOCUMENT_ID REPOSITORY");
  process.exit(2);
}
const server = new URL(url);
const REDIRECT = "http://127.0.0.1:1/callback";

// Every request the SDK makes, in order: method, URL, status, and what was
// sent where it matters (never printed: the checks read it).
const sent = [];
async function recordingFetch(input, init = {}) {
  const response = await fetch(input, init);
  sent.push({
    method: init.method ?? "GET",
    url: new URL(String(input instanceof Request ? input.url : input)),
    status: response.status,
    body: typeof init.body === "string" ? init.body : init.body?.toString?.(),
    authorization: new Headers(init.headers).get("authorization"),
    challenge: response.headers.get("www-authenticate"),
  });
  return response;
}

// The user agent's part: follows redirects with a cookie jar until the
// callback, and returns the authorization code.
async function approve(authorizationUrl) {
  const cookies = new Map();
  let next = authorizationUrl;
  for (let hop = 0; hop < 20; hop += 1) {
    const response = await fetch(next, {
      redirect: "manual",
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`the authorization server answered ${response.status} at ${next.pathname}`);
    }
    next = new URL(location, next);
    if (next.href.startsWith(REDIRECT)) {
      const code = next.searchParams.get("code");
      if (!code) throw new Error(`no code in the callback: ${next.search}`);
      return code;
    }
  }
  throw new Error("too many redirects");
}

class MemoryProvider {
  constructor() {
    this.authorizations = [];
    this.registered = [];
    this.savedTokens = [];
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "chopin oauth test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information) {
    this.client = information;
    this.registered.push(information.client_id);
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens) {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  redirectToAuthorization(authorizationUrl) {
    this.authorizations.push(authorizationUrl);
    this.approved = approve(authorizationUrl);
  }
}

const provider = new MemoryProvider();
const transportOptions = { authProvider: provider, fetch: recordingFetch };
const client = new Client({ name: "chopin-oauth", version: "1.0.0" });

// Connects, completing the sign-in the first attempt starts.
async function connect() {
  try {
    await client.connect(new StreamableHTTPClientTransport(server, transportOptions));
    throw new Error("connected without signing in");
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const transport = new StreamableHTTPClientTransport(server, transportOptions);
  await transport.finishAuth(await provider.approved);
  await client.connect(transport);
  return transport;
}

// A tools/call that may need a new authorization first (the SDK throws
// UnauthorizedError once it has sent the user to authorize again).
async function callSigningIn(transport, name, args) {
  const call = () => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema);
  try {
    return { result: await call(), signedInAgain: false };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await transport.finishAuth(await provider.approved);
    return { result: await call(), signedInAgain: true };
  }
}

const scopesOf = (authorizationUrl) => authorizationUrl.searchParams.get("scope");
let transport;

await check("sign in and initialize", async () => {
  transport = await connect();
  const info = client.getServerVersion();
  expect(info?.name === "chopin", `serverInfo ${JSON.stringify(info)}`);
  return `client ${provider.registered[0]}`;
});

if (mode === "flow") {
  await check("the first request is refused with a challenge naming the metadata", async () => {
    const first = sent[0];
    expect(first.method === "POST" && first.url.pathname === server.pathname, `first ${first.method} ${first.url}`);
    expect(first.status === 401, `status ${first.status}`);
    expect(!first.authorization, "the first request already carried a token");
    const want = `${server.origin}/.well-known/oauth-protected-resource${server.pathname}`;
    expect(first.challenge.includes(`resource_metadata="${want}"`), `challenge ${first.challenge}`);
    expect(!first.challenge.includes("error="), `challenge ${first.challenge}`);
    return first.challenge;
  });

  await check("then metadata, registration, authorization with PKCE and resource, token", async () => {
    const steps = sent.slice(1).map((r) => `${r.method} ${r.url.pathname} ${r.status}`);
    const prm = sent.findIndex((r) => r.url.pathname.startsWith("/.well-known/oauth-protected-resource"));
    const asMeta = sent.findIndex((r) => r.status === 200 && /\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(r.url.pathname));
    const registration = sent.findIndex((r) => r.method === "POST" && r.status === 201);
    const token = sent.findIndex((r) => r.method === "POST" && r.body?.includes("grant_type=authorization_code"));
    const mcp = sent.findIndex((r, i) => i > 0 && r.url.pathname === server.pathname && r.status === 200);
    expect(sent[prm]?.status === 200, `metadata: ${steps}`);
    expect(0 < prm && prm < asMeta && asMeta < registration && registration < token && token < mcp, `order: ${steps}`);
    expect(provider.authorizations.length === 1, `${provider.authorizations.length} authorizations`);
    const authorization = provider.authorizations[0];
    expect(authorization.searchParams.get("code_challenge_method") === "S256", "no S256 challenge");
    expect(authorization.searchParams.get("code_challenge"), "no code challenge");
    expect(authorization.searchParams.get("resource") === url, `resource ${authorization.searchParams.get("resource")}`);
    expect(scopesOf(authorization) === "chopin:read", `scope ${scopesOf(authorization)}`);
    const body = new URLSearchParams(sent[token].body);
    expect(body.get("code_verifier"), "no code_verifier");
    expect(body.get("resource") === url, `token resource ${body.get("resource")}`);
    expect(sent[mcp].authorization?.startsWith("Bearer ey"), "the MCP request carries no JWT");
    return steps.join(" → ");
  });

  await check("tools/list", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const wanted of ["list_documents", "read_document", "create_document"]) {
      expect(names.includes(wanted), `${wanted} missing from ${names}`);
    }
    return names.join(", ");
  });

  await check("list_documents", async () => {
    const result = await client.callTool({ name: "list_documents", arguments: { repository } });
    expect(!result.isError, JSON.stringify(result));
    const ids = (result.structuredContent?.documents ?? []).map((d) => d.id);
    expect(ids.includes(documentId), `documents ${ids}`);
  });

  await check("read_document", async () => {
    const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
    expect(!result.isError && result.structuredContent?.id === documentId, JSON.stringify(result).slice(0, 200));
  });

  await check("create_document", async () => {
    const { result } = await callSigningIn(transport, "create_document", draft(`oauth-flow-${process.pid}`, repository));
    expect(!result.isError, JSON.stringify(result).slice(0, 300));
    console.log(`created ${result.structuredContent.id}`);
    return result.structuredContent.id;
  });
} else {
  await check("the first token carries the read scope only", async () => {
    expect(scopesOf(provider.authorizations[0]) === "chopin:read", `scope ${scopesOf(provider.authorizations[0])}`);
    expect(provider.current.scope === "chopin:read", `token scope ${provider.current.scope}`);
    const result = await client.callTool({ name: "read_document", arguments: { id: documentId } });
    expect(!result.isError, JSON.stringify(result).slice(0, 200));
  });

  await check("create_document steps up and succeeds", async () => {
    const before = sent.length;
    const { result, signedInAgain } = await callSigningIn(transport, "create_document", draft(`oauth-step-up-${process.pid}`, repository));
    expect(signedInAgain, "no second authorization");
    const refused = sent.slice(before).find((r) => r.status === 403);
    expect(refused, "no 403");
    expect(refused.challenge.includes('error="insufficient_scope"'), `challenge ${refused.challenge}`);
    expect(refused.challenge.includes('scope="chopin:read chopin:create"'), `challenge ${refused.challenge}`);
    expect(provider.authorizations.length === 2, `${provider.authorizations.length} authorizations`);
    expect(scopesOf(provider.authorizations[1]) === "chopin:read chopin:create", `scope ${scopesOf(provider.authorizations[1])}`);
    expect(provider.registered.length === 1, `registered ${provider.registered.length} times`);
    expect(provider.current.scope.split(" ").sort().join(" ") === "chopin:create chopin:read", `token scope ${provider.current.scope}`);
    expect(!result.isError, JSON.stringify(result).slice(0, 300));
    console.log(`created ${result.structuredContent.id}`);
    return refused.challenge;
  });

  await check("the stepped-up token keeps reading and creating", async () => {
    const again = await callSigningIn(transport, "create_document", draft(`oauth-step-up-2-${process.pid}`, repository));
    expect(!again.signedInAgain && !again.result.isError, JSON.stringify(again.result).slice(0, 200));
    const read = await client.callTool({ name: "read_document", arguments: { id: documentId } });
    expect(!read.isError, JSON.stringify(read).slice(0, 200));
  });
}

await client.close();
finish(`oauth ${mode}`);
