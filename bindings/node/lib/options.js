"use strict";
// The option checks: the endpoint settings handler(), new Endpoint() and
// tools() share, checked and copied for the addon, and the options each
// entry keeps for itself (the host functions, the write capabilities).

const SETTINGS = {
  serverName: "string",
  serverVersion: "string",
  serverTitle: "string",
  instructions: "string",
  allowedOrigins: "strings",
  allowedHosts: "strings",
  loopbackHosts: "boolean",
  protocolVersions: "strings",
  bodyBudget: "size",
  cacheTtlMs: "milliseconds",
  oauth: "oauth",
  scopes: "scopes",
  resourceMetadata: "string",
};

function fail(message) {
  throw new TypeError(`chopin-mcp: ${message}`);
}

function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value).slice(0, 40)}`;
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkSetting(name, kind, value) {
  switch (kind) {
    case "string":
      if (typeof value !== "string") fail(`option \`${name}\` must be a string, not ${describe(value)}`);
      return value;
    case "boolean":
      if (typeof value !== "boolean") fail(`option \`${name}\` must be true or false, not ${describe(value)}`);
      return value;
    case "strings":
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        fail(`option \`${name}\` must be an array of strings, not ${describe(value)}`);
      }
      return value.slice();
    case "size":
      if (!Number.isSafeInteger(value) || value < 1) fail(`option \`${name}\` must be a whole number of bytes from 1, not ${describe(value)}`);
      return value;
    case "milliseconds":
      if (!Number.isSafeInteger(value) || value < 0) fail(`option \`${name}\` must be a whole number of milliseconds from 0, not ${describe(value)}`);
      return value;
    case "oauth":
      if (!isObject(value) || typeof value.resource !== "string" || typeof value.issuer !== "string") {
        fail(`option \`oauth\` must be { resource: string, issuer: string }, not ${describe(value)}`);
      }
      return { resource: value.resource, issuer: value.issuer };
    case "scopes":
      if (
        !isObject(value) ||
        typeof value.read !== "string" ||
        typeof value.create !== "string" ||
        (value.write !== undefined && typeof value.write !== "string")
      ) {
        fail(`option \`scopes\` must be { read: string, create: string, write?: string }, not ${describe(value)}`);
      }
      return value.write === undefined ? { read: value.read, create: value.create } : { read: value.read, create: value.create, write: value.write };
  }
  return value;
}

/**
 * The endpoint settings of `options` (capabilities included), checked; keys
 * in `own` are the caller's own (host functions) and are left to it.
 */
function settingsOf(options, own, where) {
  if (options === undefined) options = {};
  if (!isObject(options)) fail(`${where} takes an options object, not ${describe(options)}`);
  const settings = {};
  for (const name of Object.keys(options)) {
    const value = options[name];
    if (value === undefined) continue;
    if (Object.hasOwn(SETTINGS, name)) {
      settings[name] = checkSetting(name, SETTINGS[name], value);
    } else if (!own.includes(name)) {
      fail(`${where}: unknown option \`${name}\``);
    }
  }
  return settings;
}

/** The write capabilities, each offered when its option is given. */
const WRITES = ["create", "update", "rename", "archive", "restore", "invoke", "upload"];
const HANDLER_OWN = ["caller", "documents", ...WRITES, "images", "implementations", "keepAliveMs"];

/** What each write capability's host object is, for a TypeError. */
const WRITE_SHAPES = {
  create: "{ create(caller, input) }",
  update: "{ update(caller, input) }",
  rename: "{ rename(caller, input) }",
  archive: "{ archive(caller, id) }",
  restore: "{ restore(caller, id) }",
  invoke: "{ invoke(caller, input, client) }",
  upload: "{ upload(caller, input, paths) }",
};

/** new Endpoint()'s own options: the write capabilities, each true or false. */
const ENDPOINT_OWN = WRITES;

/** How often a handler's open event stream sends a keep-alive comment, unless `keepAliveMs` says. */
const KEEP_ALIVE_MS = 15_000;

module.exports = {
  fail,
  describe,
  isObject,
  settingsOf,
  WRITES,
  HANDLER_OWN,
  WRITE_SHAPES,
  ENDPOINT_OWN,
  KEEP_ALIVE_MS,
};
