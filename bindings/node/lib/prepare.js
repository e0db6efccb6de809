"use strict";
// prepareUpdate (index.d.ts): update_document's arguments prepared as the
// endpoint prepares its update effect's host input, for a host that stores
// an update outside the handler. The addon checks and canonicalizes
// (src/prepare.rs); this side only hands it the arguments' JSON.

const native = require("./native.js");

/** Whether JSON.stringify writes every own key of `value` as it is. */
function plainObject(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (member === undefined || typeof member === "function" || typeof member === "symbol") {
      return false;
    }
  }
  return true;
}

/**
 * The host input an update_document call with these arguments gives the
 * update effect (`{input}`), the plan's issues (`{issues}`), or `undefined`
 * where the handler answers "update_document requires a valid revision and
 * plan".
 */
function prepareUpdate(value) {
  if (!plainObject(value)) return undefined;
  let json;
  try {
    json = JSON.stringify(value);
  } catch {
    // A BigInt, a cycle, or a throwing toJSON: not arguments a request carries.
    return undefined;
  }
  const prepared = JSON.parse(native.prepareUpdate(json));
  return prepared === null ? undefined : prepared;
}

module.exports = { prepareUpdate };
