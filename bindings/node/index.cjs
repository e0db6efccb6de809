"use strict";
// chopin-mcp for Node and Bun: the Rust endpoint (a Node-API addon, built
// from src/ by `npm run build`) driven from JavaScript.
//
// The drive loop runs in lib/. Each step is one call into the addon, a
// plain function taking the endpoint's number, flat arguments (strings,
// numbers, byte arrays) and returning one string (src/wire.rs has its
// format); each effect is a plain, awaited call of the host's function.
// Caller values stay in JavaScript. index.d.ts documents the API;
// docs/typescript.md is the guide.
//
// This file is the package's one source of its exports: index.mjs
// re-exports them for ESM. It loads the addon first, so that a package
// without it fails here with the advice to build it; the rooms of lib/
// then take the same module from require's cache (lib/native.js):
//
//   lib/options.js    the option checks, and each entry's own options
//   lib/caller.js     what the caller function answers (scoped, UNAVAILABLE)
//   lib/wire.js       the outcome strings: tags, response heads, host inputs
//   lib/headers.js    request headers for the addon
//   lib/answers.js    the host's answers to the effects, checked and flattened
//   lib/core.js       the addon's endpoint with its exchange slots
//   lib/handler.js    handler(): its options checked
//   lib/drive.js      handler()'s per-request function (the effect drive)
//   lib/endpoint.js   Endpoint and Exchange: the steps for hosts without Web Requests
//   lib/tools.js      tools() and TOOLS
//   lib/implementations.js  the `implementations` option, its answers, and `rules`
//   lib/prepare.js    prepareUpdate(): an update's host input outside the handler

// Loaded here, before any room of lib/, for its advice when it is missing.
loadAddon();

function loadAddon() {
  const file = `chopin-mcp.${process.platform}-${process.arch}.node`;
  try {
    return require(`./${file}`);
  } catch (error) {
    if (error && error.code === "MODULE_NOT_FOUND") {
      throw new Error(
        `chopin-mcp: the native addon ${file} is not built; run \`npm run build\` in ${__dirname}`,
        { cause: error },
      );
    }
    throw error;
  }
}

const { handler } = require("./lib/handler.js");
const { Endpoint } = require("./lib/endpoint.js");
const { tools, TOOLS } = require("./lib/tools.js");
const { scoped, UNAVAILABLE } = require("./lib/caller.js");
const { KEEP_ALIVE } = require("./lib/drive.js");
const { rules } = require("./lib/implementations.js");
const { prepareUpdate } = require("./lib/prepare.js");

/** The keep-alive comment an open event stream sends every 15 s or so. */
const KEEP_ALIVE_TEXT = new TextDecoder().decode(KEEP_ALIVE);

module.exports = {
  handler,
  Endpoint,
  TOOLS,
  tools,
  scoped,
  UNAVAILABLE,
  KEEP_ALIVE: KEEP_ALIVE_TEXT,
  rules,
  prepareUpdate,
};
