"use strict";
// Request headers for the addon: the values of the headers the endpoint
// reads, by name (the handler's), or every header listed (`name\0value\0…`,
// Endpoint's and Protected Resource Metadata's); and a request URL's target.

const native = require("./native.js");
const { fail, describe, isObject } = require("./options.js");

// Every request header the endpoint reads (src/wire.rs NAMED): the handler
// passes their values alone, Headers.get of each being cheaper than walking
// them all. It reads content-length (the eighth) itself too.
const NAMED = native.namedHeaders();
if (NAMED.length !== 11 || NAMED[7] !== "content-length") {
  throw new Error("chopin-mcp: index.cjs and the addon disagree on the request headers; rebuild the addon");
}
const [N0, N1, N2, N3, N4, N5, N6, N7, N8, N9, N10] = NAMED;

/** Whether `text` is a decimal number (a declared length). */
function isLength(text) {
  if (text.length === 0 || text.length > 16) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `name\0value\0…` of Web `Headers`. */
function flatWebHeaders(headers) {
  let flat = "";
  headers.forEach((value, name) => {
    flat += name + "\0" + value + "\0";
  });
  return flat;
}

/** `name\0value\0…` of headers as Node gives them, or a Web `Headers`. */
function flatHeaders(headers) {
  if (Array.isArray(headers)) {
    if (headers.length % 2 !== 0 || !headers.every((item) => typeof item === "string")) {
      fail("headers as an array are names and values alternating (Node's `rawHeaders`)");
    }
    return headers.join("\0");
  }
  if (headers !== null && typeof headers === "object" && typeof headers.forEach === "function" && typeof headers.get === "function") {
    return flatWebHeaders(headers);
  }
  if (!isObject(headers)) fail(`headers are Node's \`rawHeaders\`, a Web Headers or an object, not ${describe(headers)}`);
  let flat = "";
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const line of value) flat += name + "\0" + String(line) + "\0";
    } else {
      flat += name + "\0" + String(value) + "\0";
    }
  }
  return flat;
}

/** The path and query of a request URL. */
function targetOf(url) {
  const scheme = url.indexOf("://");
  const path = scheme < 0 ? 0 : url.indexOf("/", scheme + 3);
  return path < 0 ? "/" : url.slice(path);
}

module.exports = { N0, N1, N2, N3, N4, N5, N6, N7, N8, N9, N10, isLength, flatWebHeaders, flatHeaders, targetOf };
