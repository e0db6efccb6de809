"use strict";
// Host answers, checked and flattened for the addon: each effect's answer
// (read, list, create, update, rename, archive, restore) as the flat
// arguments of its addon function, or a TypeError naming what was wrong.

const native = require("./native.js");
const { fail, describe, isObject } = require("./options.js");

function isDocument(value) {
  return (
    typeof value.id === "string" &&
    typeof value.title === "string" &&
    typeof value.source === "string" &&
    Number.isSafeInteger(value.revision) &&
    value.revision >= 0
  );
}

function badDocument(where, value) {
  if (!isObject(value)) fail(`${where} must give a document or undefined, not ${describe(value)}`);
  for (const key of ["id", "title", "source"]) {
    if (typeof value[key] !== "string") fail(`${where} gave a document whose \`${key}\` is ${describe(value[key])}, not a string`);
  }
  fail(`${where} gave a document whose \`revision\` is ${describe(value.revision)}, not a whole number from 0`);
}

/**
 * An optional string member `key` of `value`: the string, or undefined when
 * absent or null; anything else is a TypeError.
 */
function optionalString(value, key, where) {
  const member = value[key];
  if (member === undefined || member === null) return undefined;
  if (typeof member !== "string") fail(`${where} gave a document whose \`${key}\` is ${describe(member)}, not a string`);
  return member;
}

/**
 * The summaries as JSON, for the addon: `[id, title, …]`, or, when one has
 * a `description` or an `archivedAt`, `[null, id, title, description,
 * archivedAt, …]` (the last two a string or null).
 */
function flatSummaries(documents, where) {
  if (!Array.isArray(documents)) fail(`${where} must give an array of { id, title } or "forbidden", not ${describe(documents)}`);
  const flat = new Array(documents.length * 2);
  let extras = false;
  for (let i = 0; i < documents.length; i++) {
    const summary = documents[i];
    if (!isObject(summary) || typeof summary.id !== "string" || typeof summary.title !== "string") {
      fail(`${where} gave ${describe(summary)} at index ${i}, not { id: string, title: string }`);
    }
    flat[2 * i] = summary.id;
    flat[2 * i + 1] = summary.title;
    if (summary.description != null || summary.archivedAt != null) extras = true;
  }
  if (!extras) return JSON.stringify(flat);
  const wide = new Array(1 + documents.length * 4);
  wide[0] = null;
  for (let i = 0; i < documents.length; i++) {
    const summary = documents[i];
    wide[1 + 4 * i] = summary.id;
    wide[2 + 4 * i] = summary.title;
    wide[3 + 4 * i] = optionalString(summary, "description", `${where} (index ${i})`) ?? null;
    wide[4 + 4 * i] = optionalString(summary, "archivedAt", `${where} (index ${i})`) ?? null;
  }
  return JSON.stringify(wide);
}

const CREATE_KINDS = { created: 0, replayed: 1, conflict: 2, forbidden: 3, unavailable: 4, "title-taken": 5 };

function isStrings(value) {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isBrief(brief) {
  return (
    isObject(brief) &&
    typeof brief.goal === "string" &&
    isStrings(brief.constraints) &&
    isStrings(brief.settledDecisions) &&
    isStrings(brief.openQuestions) &&
    isStrings(brief.repositoryFindings)
  );
}

/** A brief's five keys (other keys a host's object has are not sent). */
function briefOf(brief) {
  return {
    goal: brief.goal,
    constraints: brief.constraints,
    settledDecisions: brief.settledDecisions,
    openQuestions: brief.openQuestions,
    repositoryFindings: brief.repositoryFindings,
  };
}

const BRIEF_KEYS = "{ goal, constraints, settledDecisions, openQuestions, repositoryFindings }";

/**
 * Answers a read effect with `document`: a Document, or undefined / null
 * for absent. `id` is the id the read asked for; `apart`, answerRead's bit
 * asking for the outcome apart (lib/drive.js), or 0.
 */
function answerRead(core, slot, document, where, id, apart = 0) {
  if (document === undefined || document === null) return native.answerAbsent(core, slot);
  if (typeof document !== "object" || !isDocument(document)) badDocument(where, document);
  let brief;
  if (document.brief !== undefined && document.brief !== null) {
    if (!isBrief(document.brief)) fail(`${where} gave a document whose \`brief\` is not ${BRIEF_KEYS}`);
    brief = JSON.stringify(briefOf(document.brief));
  }
  const description = optionalString(document, "description", where);
  const archivedAt = optionalString(document, "archivedAt", where);
  const url = optionalString(document, "url", where);
  // Which of the four optional fields are given: the addon makes no
  // Node-API call for the others.
  // The id the read asked for, given back, need not cross again (16).
  const own = document.id === id;
  const present = (brief === undefined ? 0 : 1) | (description === undefined ? 0 : 2) | (archivedAt === undefined ? 0 : 4) | (url === undefined ? 0 : 8) | (own ? 16 : 0) | apart;
  return native.answerRead(core, slot, own ? null : document.id, document.title, document.source, document.revision, brief, description, archivedAt, url, present);
}

/** The fields of a created document but its source, as JSON for the addon. */
function createdFields(document, where) {
  if (!isObject(document)) fail(`${where}: a created or replayed answer carries a document, not ${describe(document)}`);
  for (const key of ["id", "title", "source", "url"]) {
    if (typeof document[key] !== "string") fail(`${where}: the document's \`${key}\` is ${describe(document[key])}, not a string`);
  }
  if (!Number.isSafeInteger(document.revision) || document.revision < 0) {
    fail(`${where}: the document's \`revision\` is ${describe(document.revision)}, not a whole number from 0`);
  }
  if (!isBrief(document.brief)) fail(`${where}: the document's \`brief\` is not ${BRIEF_KEYS}`);
  return JSON.stringify({ id: document.id, title: document.title, brief: briefOf(document.brief), revision: document.revision, url: document.url });
}

/**
 * Answers a create effect with `answer` ({ kind, document? }); `plan` is
 * the canonical plan the host was given: a document whose source is it
 * (as a host that stored what it got answers) does not send it back.
 */
function answerCreate(core, slot, answer, plan, where) {
  const kind = kindOf(answer, CREATE_KINDS, where);
  if (kind > 1) return native.answerCreate(core, slot, kind);
  const fields = createdFields(answer.document, where);
  const source = answer.document.source;
  return native.answerCreate(core, slot, kind, fields, source === plan ? undefined : source);
}

/**
 * Answers a list effect: an array of summaries, or "forbidden" (the caller
 * may not list the repository).
 */
function answerList(core, slot, documents, where) {
  if (documents === "forbidden") return native.answerListForbidden(core, slot);
  return native.answerList(core, slot, flatSummaries(documents, where));
}

/** The code of `answer.kind` in `kinds`, or a TypeError listing them. */
function kindOf(answer, kinds, where) {
  const kind = isObject(answer) && Object.hasOwn(kinds, answer.kind) ? kinds[answer.kind] : undefined;
  if (kind === undefined) {
    const names = Object.keys(kinds).map((name) => `"${name}"`).join(" | ");
    fail(`${where} must give { kind: ${names} }, not ${describe(answer)}`);
  }
  return kind;
}

/** The string members `keys` of the document `answer` carries, checked. */
function stringsOf(answer, keys, where) {
  const document = answer.document;
  if (!isObject(document)) fail(`${where}: a "${answer.kind}" answer carries a document, not ${describe(document)}`);
  return keys.map((key) => {
    const value = document[key];
    if (typeof value !== "string") fail(`${where}: the document's \`${key}\` is ${describe(value)}, not a string`);
    return value;
  });
}

const UPDATE_KINDS = {
  updated: 0,
  replayed: 1,
  conflict: 2,
  "revision-conflict": 3,
  locked: 4,
  protected: 5,
  archived: 6,
  forbidden: 7,
  unavailable: 8,
};

/**
 * Answers an update effect with `answer` ({ kind, document? } or
 * { kind: "revision-conflict", revision }); as with create, a document
 * whose source is the canonical plan given does not send it back.
 */
function answerUpdate(core, slot, answer, plan, where) {
  const kind = kindOf(answer, UPDATE_KINDS, where);
  if (kind === 3) {
    if (!Number.isSafeInteger(answer.revision) || answer.revision < 0) {
      fail(`${where}: a "revision-conflict" answer carries the document's current \`revision\`, a whole number from 0, not ${describe(answer.revision)}`);
    }
    return native.answerUpdate(core, slot, kind, undefined, undefined, answer.revision);
  }
  if (kind > 1) return native.answerUpdate(core, slot, kind);
  const [id, title, source, url] = stringsOf(answer, ["id", "title", "source", "url"], where);
  const document = answer.document;
  if (!Number.isSafeInteger(document.revision) || document.revision < 0) {
    fail(`${where}: the document's \`revision\` is ${describe(document.revision)}, not a whole number from 0`);
  }
  const fields = { id, title, brief: undefined, revision: document.revision, url };
  if (document.brief !== undefined && document.brief !== null) {
    if (!isBrief(document.brief)) fail(`${where}: the document's \`brief\` is not ${BRIEF_KEYS}`);
    fields.brief = briefOf(document.brief);
  }
  return native.answerUpdate(core, slot, kind, JSON.stringify(fields), source === plan ? undefined : source);
}

// "unchanged" (upstream's: nothing to change) succeeds as the change does.
const RENAME_KINDS = { renamed: 0, unchanged: 0, archived: 1, conflict: 2, forbidden: 3, unavailable: 4 };
const ARCHIVE_KINDS = { archived: 0, unchanged: 0, forbidden: 3, unavailable: 4 };
const RESTORE_KINDS = { restored: 0, unchanged: 0, forbidden: 3, unavailable: 4 };

/** Answers a rename effect: { kind: "renamed" | "unchanged", document: { id, title, description? } } or a code. */
function answerRename(core, slot, answer, where) {
  const kind = kindOf(answer, RENAME_KINDS, where);
  if (kind !== 0) return native.answerRename(core, slot, kind);
  const [id, title] = stringsOf(answer, ["id", "title"], where);
  const description = optionalString(answer.document, "description", where);
  return native.answerRename(core, slot, kind, id, title, description);
}

/** Answers an archive effect: { kind: "archived" | "unchanged", document: { id, title, description?, archivedAt } } or a code. */
function answerArchive(core, slot, answer, where) {
  const kind = kindOf(answer, ARCHIVE_KINDS, where);
  if (kind !== 0) return native.answerArchive(core, slot, kind);
  const [id, title, archivedAt] = stringsOf(answer, ["id", "title", "archivedAt"], where);
  const description = optionalString(answer.document, "description", where);
  return native.answerArchive(core, slot, kind, id, title, archivedAt, description);
}

/** Answers a restore effect: { kind: "restored" | "unchanged", document: { id, title, description? } } or a code. */
function answerRestore(core, slot, answer, where) {
  const kind = kindOf(answer, RESTORE_KINDS, where);
  if (kind !== 0) return native.answerRestore(core, slot, kind);
  const [id, title] = stringsOf(answer, ["id", "title"], where);
  const description = optionalString(answer.document, "description", where);
  return native.answerRestore(core, slot, kind, id, title, description);
}

/** The codes of a planner's refusal (SURFACE.md §9), in the addon's order from 1. */
const PLANNER_REFUSALS = [
  "document-unavailable",
  "repository-forbidden",
  "document-archived",
  "planner-owner-unavailable",
  "checkout-unverified",
  "planner-unavailable",
  "planner-queue-full",
];

/**
 * Answers a planner effect: { kind: "invoked", document: { id, title,
 * description?, url } } or { kind: "refused", code } with one of the seven
 * codes.
 */
function answerInvoke(core, slot, answer, where) {
  const kind = kindOf(answer, { invoked: 0, refused: 1 }, where);
  if (kind === 1) {
    const code = PLANNER_REFUSALS.indexOf(answer.code);
    if (typeof answer.code !== "string" || code < 0) {
      const codes = PLANNER_REFUSALS.map((name) => `"${name}"`).join(" | ");
      fail(`${where}: a "refused" answer carries a \`code\`, one of ${codes}, not ${describe(answer.code)}`);
    }
    return native.answerInvoke(core, slot, code + 1);
  }
  const [id, title, url] = stringsOf(answer, ["id", "title", "url"], where);
  const description = answer.document.description;
  if (description !== undefined && description !== null && typeof description !== "string") {
    fail(`${where}: the document's \`description\` is ${describe(description)}, not a string`);
  }
  return native.answerInvoke(core, slot, 0, id, title, url, description ?? undefined);
}

const UPLOAD_KINDS = { uploaded: 0, archived: 1, forbidden: 2, unavailable: 3, "too-large": 4 };

/**
 * Answers an upload effect: { kind: "uploaded", path? } or a code. A path
 * given must be the core's `path` (the digest of the bytes it checked):
 * the result always names the core's.
 */
function answerUpload(core, slot, answer, path, where) {
  const kind = kindOf(answer, UPLOAD_KINDS, where);
  if (kind === 0 && answer.path !== undefined && answer.path !== path) {
    fail(`${where}: an "uploaded" answer's \`path\` must be ${path} (the digest of the bytes given), not ${describe(answer.path)}`);
  }
  return native.answerUpload(core, slot, kind);
}

/**
 * Answers an image read: undefined or null (not found for this caller),
 * "unavailable", or { mimeType, bytes } (a Uint8Array, Buffer or
 * ArrayBuffer).
 */
function answerImage(core, slot, image, where) {
  if (image === undefined || image === null) return native.answerImage(core, slot, 1);
  if (image === "unavailable") return native.answerImage(core, slot, 2);
  if (!isObject(image) || typeof image.mimeType !== "string") {
    fail(`${where} must give { mimeType, bytes }, "unavailable" or undefined, not ${describe(image)}`);
  }
  let bytes = image.bytes;
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) fail(`${where}: an image's \`bytes\` is a Uint8Array, not ${describe(bytes)}`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return native.answerImage(core, slot, 0, image.mimeType, buffer);
}

/**
 * Answers a document URL's read with `document` (a Document, or undefined /
 * null for absent: 404): only its source and revision are served.
 */
function answerDocument(core, slot, document, where) {
  if (document === undefined || document === null) return native.documentAnswer(core, slot);
  if (typeof document !== "object" || !isDocument(document)) badDocument(where, document);
  return native.documentAnswer(core, slot, document.source, document.revision);
}

module.exports = { answerDocument, answerRead, answerList, answerCreate, answerUpdate, answerRename, answerArchive, answerRestore, answerInvoke, PLANNER_REFUSALS, answerUpload, answerImage };
