"use strict";
// The implementation tools (IMPLEMENTATION.md): the `implementations` host
// option checked, the three effects' host inputs read and their answers
// checked for the addon, and `rules`, the pure rules of
// chopin_mcp::implementation for a TypeScript host's own transaction.

const native = require("./native.js");
const { fail, describe, isObject } = require("./options.js");

const SHAPE = "{ read(caller, id), start?(caller, input), report?(caller, input) }";

/**
 * What the endpoint offers for `implementations` (undefined: nothing;
 * "read": read_implementation alone; "all": the eight tools), or a
 * TypeError naming what is wrong.
 */
function offeredBy(host, where) {
  if (host === undefined) return undefined;
  if (!isObject(host) || typeof host.read !== "function") fail(`${where}: \`implementations\` must be ${SHAPE}`);
  const start = typeof host.start === "function";
  const report = typeof host.report === "function";
  if (host.start !== undefined && !start) fail(`${where}: \`implementations.start\` must be a function (caller, input)`);
  if (host.report !== undefined && !report) fail(`${where}: \`implementations.report\` must be a function (caller, input)`);
  if (start !== report) fail(`${where}: \`implementations\` needs both \`start\` and \`report\`, or neither (read only)`);
  return start ? "all" : "read";
}

const READ_KINDS = ["found", "forbidden", "unavailable"];
const START_KINDS = ["started", "active", "refused", "forbidden", "archived", "unavailable"];
const REPORT_KINDS = ["accepted", "replayed", "refused", "forbidden", "unavailable"];

/**
 * The host's answer to an implementation effect as JSON for the addon: an
 * object whose `kind` is one of `kinds`; the rest is checked by the addon
 * (a malformed answer is a TypeError from there).
 */
function answerJson(answer, kinds, where) {
  if (!isObject(answer)) fail(`${where} must give { kind, … }, not ${describe(answer)}`);
  if (!kinds.includes(answer.kind)) fail(`${where} gave kind ${describe(answer.kind)}, not one of ${kinds.join(", ")}`);
  return JSON.stringify(answer);
}

function answerReadImplementation(core, slot, answer, where) {
  return native.answerImplementation(core, slot, answerJson(answer, READ_KINDS, where));
}

function answerStartImplementation(core, slot, answer, where) {
  return native.answerImplementation(core, slot, answerJson(answer, START_KINDS, where));
}

function answerReport(core, slot, answer, where) {
  return native.answerImplementation(core, slot, answerJson(answer, REPORT_KINDS, where));
}

/** The host input of a claim's or report's outcome (its JSON after the tag). */
function implementationInput(out) {
  return JSON.parse(out.slice(1));
}

/** Runs rule `name` of the addon on `args`; a bad argument is a TypeError. */
function rule(name, args) {
  let json;
  try {
    json = native.implementationRule(name, JSON.stringify(args));
  } catch (error) {
    throw new TypeError(`chopin-mcp: rules.${name}: ${error && error.message}`, { cause: error });
  }
  return JSON.parse(json);
}

/** The rules of implementation runs, each over plain objects (index.d.ts). */
const rules = Object.freeze({
  checkGraph: (definition) => rule("checkGraph", [definition]),
  fingerprint: (runId, event) => rule("fingerprint", [runId, event]),
  fold: (run, tasks, events) => rule("fold", [run, tasks, events]),
  claim: (state, revisions) => rule("claim", [state, revisions]),
  report: (state, call) => rule("report", [state, call]),
  lock: (version) => rule("lock", [version]),
  unlock: (version) => rule("unlock", [version]),
  life: (state) => rule("life", [state]),
});

module.exports = {
  offeredBy,
  answerReadImplementation,
  answerStartImplementation,
  answerReport,
  implementationInput,
  rules,
};
