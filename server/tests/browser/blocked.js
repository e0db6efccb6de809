// A page on an origin the server does not allow: the browser must block its
// requests. The test checks, with raw requests carrying this page's origin,
// that the server refuses them (403) rather than relying on the browser.
import { check, expect, finish, mcp, token } from "./checks.js";

async function blocked(init) {
  try {
    const response = await fetch(mcp, init);
    throw new Error(`the page read a response: status ${response.status}`);
  } catch (error) {
    expect(error instanceof TypeError, `${error?.name}: ${error?.message}`);
    return `${error.name}: ${error.message}`;
  }
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "blocked", version: "1.0.0" } },
});

// Authorization and a JSON content type make the browser ask first: the
// preflight is refused, so the POST is never sent.
await check("preflighted request blocked", () =>
  blocked({
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: initialize,
  }),
);

// A CORS-safelisted request goes out without a preflight: the server refuses
// it, and without a grant the browser hides even the refusal from the page.
await check("simple request blocked", () =>
  blocked({ method: "POST", headers: { "content-type": "text/plain" }, body: initialize }),
);

finish();
