// A real OAuth 2.1 authorization server for the server's OAuth tests:
// oidc-provider on a loopback port, with
//
// - dynamic client registration (open), PKCE (required for public clients),
// - resource indicators: an access token for any requested resource is a JWT
//   (RS256) whose `aud` is that resource, with the scopes asked for among
//   `chopin:read`, `chopin:create` and `chopin:write`; the client
//   `opaque-bot` gets opaque tokens instead,
// - introspection and revocation, client credentials,
// - a headless login that signs in the one user, `alice`, and approves
//   every request (`/interaction/:uid`),
// - test controls under `/__test/`: mint a token with the AS's key or a
//   forged one, rotate and retire signing keys (the provider is rebuilt with
//   the new key set; registrations and grants live in the shared in-memory
//   store and survive).
//
// Usage: node as.mjs [PORT]. Prints `issuer http://127.0.0.1:PORT` when ready.
// Loopback test use only: the controls would hand anyone a token.

import http from 'node:http';
import Provider from 'oidc-provider';
import * as jose from 'jose';

export const SCOPES = 'chopin:read chopin:create chopin:write';
const USER = 'alice';

const clients = [
  {
    // The MCP server's own client, for introspection.
    client_id: 'chopin-server',
    client_secret: 'chopin-server-secret-0123456789',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'reader-bot',
    client_secret: 'reader-bot-secret-0123456789',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: SCOPES,
  },
  {
    client_id: 'opaque-bot',
    client_secret: 'opaque-bot-secret-0123456789',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: SCOPES,
  },
];

async function newKey() {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: `k${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

const publicPart = ({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use });

// Two RSA signing keys from the start: the first signs; the second makes a
// token without `kid` ambiguous.
let keys = [await newKey(), await newKey()];

function configuration() {
  return {
    clients,
    jwks: { keys },
    cookies: { keys: ['chopin-test-cookie-key'] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: ['openid', 'offline_access', ...SCOPES.split(' ')],
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => ({
          scope: SCOPES,
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: client.clientId === 'opaque-bot' ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  };
}

const server = http.createServer();
await new Promise((resolve) => server.listen(Number(process.argv[2] || 0), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

let provider;
let handle;
function build() {
  provider = new Provider(issuer, configuration());
  handle = provider.callback();
}
build();

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : {};
}

function send(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

// POST /__test/mint {claims, key, alg, kid, typ}: a compact JWS. `key`:
// `current` (the AS's signing key), `forged` (a fresh key, the current kid),
// `hmac-public` (HS256 keyed with the current public key's PEM), `none`.
// `kid: null` leaves the kid out; `typ` defaults to at+jwt.
async function mint(spec) {
  const signer = keys[0];
  const header = { alg: spec.alg || 'RS256', typ: spec.typ === undefined ? 'at+jwt' : spec.typ };
  if (spec.typ === null) delete header.typ;
  if (spec.kid !== null) header.kid = spec.kid || signer.kid;
  if (spec.jku) header.jku = spec.jku;
  const claims = spec.claims || {};
  switch (spec.key || 'current') {
    case 'current':
      return new jose.SignJWT(claims).setProtectedHeader(header).sign(await jose.importJWK(signer, header.alg));
    case 'forged': {
      const forged = await newKey();
      return new jose.SignJWT(claims).setProtectedHeader(header).sign(await jose.importJWK(forged, header.alg));
    }
    case 'hmac-public': {
      const pem = await jose.exportSPKI(await jose.importJWK(publicPart(signer), 'RS256'));
      header.alg = 'HS256';
      return new jose.SignJWT(claims).setProtectedHeader(header).sign(new TextEncoder().encode(pem));
    }
    case 'none':
      header.alg = 'none';
      return `${b64(header)}.${b64(claims)}.`;
    default:
      throw new Error(`unknown key ${spec.key}`);
  }
}

async function control(req, res) {
  const path = req.url.split('?')[0];
  if (path === '/__test/mint') return send(res, 200, { token: await mint(await body(req)) });
  if (path === '/__test/rotate') {
    keys = [await newKey(), ...keys];
    build();
    return send(res, 200, { kid: keys[0].kid });
  }
  if (path === '/__test/retire') {
    keys = [keys[0]];
    build();
    return send(res, 200, { kid: keys[0].kid });
  }
  if (path === '/__test/keys') return send(res, 200, { kids: keys.map((k) => k.kid) });
  return send(res, 404, { error: 'no such control' });
}

// The headless login: `alice` signs in, and every scope and resource asked
// for is approved.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session, grantId } = details;
  let result;
  if (prompt.name === 'login') {
    result = { login: { accountId: USER } };
  } else {
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes || {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

// Dynamic registration without the client's `scope`: oidc-provider would
// otherwise pin a client to the scopes it registered with, and the TS SDK
// registers with the scope of the first 401 (the read scope) and steps up
// to create later with the same registration (403 insufficient_scope). Many
// providers do not pin scopes at registration; this one is told not to.
async function register(req, res) {
  const metadata = await body(req);
  delete metadata.scope;
  req.body = metadata; // oidc-provider reads an already parsed body
  return handle(req, res);
}

server.on('request', (req, res) => {
  const fail = (error) => {
    console.error(error);
    if (!res.headersSent) send(res, 500, { error: String(error) });
  };
  if (req.method === 'POST' && req.url.split('?')[0] === '/reg') return register(req, res).catch(fail);
  if (req.url.startsWith('/__test/')) return control(req, res).catch(fail);
  if (req.url.startsWith('/interaction/')) return interaction(req, res).catch(fail);
  return handle(req, res);
});

console.log(`issuer ${issuer}`);
