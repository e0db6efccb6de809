"use strict";
// What the host's caller function answers (a caller, scoped(caller,
// scopes), UNAVAILABLE, or none), and the addon's verdict code for it.

/** What `caller` returns when the credentials cannot be judged now: 503. */
const UNAVAILABLE = Symbol.for("chopin-mcp.unavailable");

class Scoped {
  constructor(caller, scopes) {
    this.caller = caller;
    this.scopes = scopes;
  }
}

function scoped(caller, scopes) {
  if (caller === undefined || caller === null) {
    throw new TypeError("chopin-mcp: scoped(caller, scopes) needs a caller (undefined and null refuse)");
  }
  let names;
  if (typeof scopes === "string") {
    names = scopes.split(" ").filter((name) => name !== "");
  } else if (Array.isArray(scopes) && scopes.every((name) => typeof name === "string")) {
    names = scopes.slice();
  } else {
    throw new TypeError("chopin-mcp: scoped(caller, scopes): scopes is a space-separated string or an array of strings");
  }
  return new Scoped(caller, names);
}

/** The verdict code for an answer of the caller function (src/answer/authenticate.rs). */
function verdictOf(answer) {
  if (answer === undefined || answer === null) return 0;
  if (answer === UNAVAILABLE) return 3;
  if (answer instanceof Scoped) return 2;
  return 1;
}

module.exports = { UNAVAILABLE, Scoped, scoped, verdictOf };
