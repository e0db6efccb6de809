"use strict";
// tools(): the tools a handler (or Endpoint) with given options offers, as
// `tools/list` gives them; TOOLS: a read-only handler's.

const { settingsOf, WRITES, HANDLER_OWN, ENDPOINT_OWN } = require("./options.js");
const { Core } = require("./core.js");
const { offeredBy } = require("./implementations.js");

function deepFreeze(value) {
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) deepFreeze(value[key]);
    Object.freeze(value);
  }
  return value;
}

/** The tools a handler (or Endpoint) with `options` offers. */
function tools(options) {
  const settings = settingsOf(options, [...HANDLER_OWN, ...ENDPOINT_OWN], "tools(options)");
  for (const name of WRITES) {
    settings[name] = options !== undefined && options[name] !== undefined && options[name] !== false;
  }
  const host = options === undefined ? undefined : options.implementations;
  // A handler's host object, or an Endpoint's true / "read".
  const offered = host === true ? "all" : host === "read" ? "read" : host === false ? undefined : offeredBy(host, "tools(options)");
  if (offered !== undefined) settings.implementations = offered;
  return new Core(settings).tools();
}

/** What a read-only handler's `tools/list` gives. */
const TOOLS = deepFreeze(tools());

module.exports = { tools, TOOLS };
