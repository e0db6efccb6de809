// What every test page shares: its parameters (from the query string), a log
// of checks, and the verdict that server/tests/browser_cors.rs reads from the
// DOM that headless Chromium dumps.
//
// The log is `<pre id="log">`, one line per check ("ok   NAME: DETAIL" or
// "FAIL NAME: DETAIL"). The verdict is `<p id="verdict">`: "pending" until the
// page's checks have all run, then "pass: N checks" or "fail: K of N checks".

const params = new URLSearchParams(location.search);

/// The MCP endpoint, the token that works, and the seeded document's id.
export const mcp = params.get("mcp");
export const token = params.get("token");
export const documentId = params.get("doc");

const log = document.getElementById("log");
const verdict = document.getElementById("verdict");
let count = 0;
let failures = 0;

function line(text) {
  log.textContent += `${text}\n`;
}

/// Runs one check; `run` may return a detail to log.
export async function check(name, run) {
  count += 1;
  try {
    const detail = await run();
    line(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (error) {
    failures += 1;
    line(`FAIL ${name}: ${error?.name ?? "Error"}: ${error?.message ?? error}`);
  }
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/// Writes the verdict: the last thing a page does.
export function finish() {
  verdict.textContent = failures === 0 ? `pass: ${count} checks` : `fail: ${failures} of ${count} checks`;
}

// Anything thrown outside a check fails the page instead of leaving it
// pending.
function crashed(what) {
  failures += 1;
  line(`FAIL uncaught: ${what}`);
  finish();
}
addEventListener("error", (event) => crashed(event.message));
addEventListener("unhandledrejection", (event) => crashed(event.reason?.message ?? event.reason));

if (!mcp || !token || !documentId) crashed("the page needs ?mcp=URL&token=TOKEN&doc=ID");
