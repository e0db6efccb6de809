"use strict";
// handler(): the seed's API over Web Request and Response. This room checks
// its options and makes the endpoint; lib/drive.js has the function each
// request goes through.

const { fail, describe, isObject, settingsOf, WRITES, HANDLER_OWN, WRITE_SHAPES, KEEP_ALIVE_MS } = require("./options.js");
const { Core, hook } = require("./core.js");
const { drive } = require("./drive.js");
const { offeredBy } = require("./implementations.js");

function handler(options) {
  if (!isObject(options)) fail(`handler(options) takes an options object, not ${describe(options)}`);
  const settings = settingsOf(options, HANDLER_OWN, "handler(options)");
  const { caller, documents, create, update, rename, archive, restore, invoke, upload, images } = options;
  if (typeof caller !== "function") fail("handler(options): `caller` must be a function (request) => caller | undefined");
  if (!isObject(documents) || typeof documents.list !== "function" || typeof documents.read !== "function") {
    fail("handler(options): `documents` must be { list(caller, repository), read(caller, id) }");
  }
  for (const name of WRITES) {
    const host = options[name];
    if (host !== undefined && (!isObject(host) || typeof host[name] !== "function")) {
      fail(`handler(options): \`${name}\` must be ${WRITE_SHAPES[name]}`);
    }
    settings[name] = host !== undefined;
  }
  if (images !== undefined && (!isObject(images) || typeof images.read !== "function")) {
    fail("handler(options): `images` must be { read(caller, sha256, mimeType) }");
  }
  const implementations = options.implementations;
  const offered = offeredBy(implementations, "handler(options)");
  if (offered !== undefined) settings.implementations = offered;
  let keepAliveMs = KEEP_ALIVE_MS;
  if (options.keepAliveMs !== undefined) {
    keepAliveMs = options.keepAliveMs;
    if (!Number.isSafeInteger(keepAliveMs) || keepAliveMs < 1 || keepAliveMs > 2_147_483_647) {
      fail(`handler(options): \`keepAliveMs\` must be a whole number of milliseconds from 1, not ${describe(keepAliveMs)}`);
    }
  }
  const core = new Core(settings);
  const mcp = drive(core, settings, { caller, documents, create, update, rename, archive, restore, invoke, upload, images, implementations }, keepAliveMs);
  hook(mcp, core);
  return mcp;
}

module.exports = { handler };
