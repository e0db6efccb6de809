"use strict";
// The outcome strings the addon's steps return (src/wire.rs has the
// format): their tags, the response heads they name, and the host input of
// the effects that carry one.

// Outcome tags (src/wire.rs).
const RESPOND = 82; // R
const NEW_HEAD = 72; // H
const FULL_HEAD = 70; // F
const APART = 80; // P: the body crosses apart
const AUTHENTICATE = 97; // a
const BODY = 98; // b
const LIST = 108; // l
const LIST_ARCHIVED = 65; // A: list, archived documents too (includeArchived)
const READ = 114; // r
const CREATE = 99; // c
const UPDATE = 117; // u
const RENAME = 110; // n
const ARCHIVE = 118; // v
const RESTORE = 115; // s
const INVOKE = 105; // i
const UPLOAD = 103; // g
const IMAGE = 109; // m: an image URL's read
const DOCUMENT_READ = 100; // d: a document URL's read (the id follows)
const READ_IMPLEMENTATION = 73; // I
const START_IMPLEMENTATION = 83; // S
const REPORT = 76; // L
const FIRST_HEAD = 0x30;

function isResponse(tag) {
  return tag === RESPOND || tag === NEW_HEAD || tag === FULL_HEAD || tag === APART;
}

/** A response head: status, headers, and whether it is an open stream. */
class Head {
  constructor(text) {
    const lines = text.split("\n");
    const first = lines[0];
    this.status = Number.parseInt(first, 10);
    this.stream = first.endsWith(" stream");
    const headers = {};
    for (let i = 1; i + 1 < lines.length; i += 2) headers[lines[i]] = lines[i + 1];
    /** Names to values, shared by every response with this head: frozen. */
    this.headers = Object.freeze(headers);
    this.web = undefined;
  }

  /**
   * The init of a Web Response with this head. Its Headers object is made
   * once: a Response copies the headers it is given, and copying a Headers
   * is cheaper than reading an object's. A 200 leaves `status` out (the
   * default): Bun reads an init's members one by one.
   */
  get init() {
    if (this.web === undefined) {
      const headers = new Headers(this.headers);
      this.web = this.status === 200 ? { headers } : { status: this.status, headers };
    }
    return this.web;
  }
}

/**
 * The two parts of an effect's outcome that carries two: the first's length
 * (`12:`), the first, then the second.
 */
function partsOf(out) {
  const colon = out.indexOf(":");
  const end = colon + 1 + Number(out.slice(1, colon));
  return [out.slice(colon + 1, end), out.slice(end)];
}

/**
 * The host input of a create effect and its client ({ input, client }): its
 * outcome carries the fields as JSON, the client among them (SURFACE.md
 * §10); the plan crosses apart.
 */
function createInput(out, plan) {
  const fields = JSON.parse(out.slice(1));
  const input = {
    idempotencyKey: fields.idempotencyKey,
    repository: fields.repository,
    baseBranch: fields.baseBranch,
    baseCommit: fields.baseCommit,
    title: fields.title,
    brief: fields.brief,
    plan,
    fingerprint: fields.fingerprint,
  };
  return { input, client: fields.client };
}

/** The host input of an update effect and its client ({ input, client }): its outcome's fields as JSON, and the plan. */
function updateInput(out, plan) {
  const fields = JSON.parse(out.slice(1));
  const input = { id: fields.id, revision: fields.revision, plan, idempotencyKey: fields.idempotencyKey, fingerprint: fields.fingerprint };
  return { input, client: fields.client };
}

/** The host input of a rename effect's outcome: the locator, then the title. */
function renameInput(out) {
  const [id, title] = partsOf(out);
  return { id, title };
}

/**
 * The host input of a planner effect and its client: the outcome's fields
 * as JSON; `checkout` only when the caller named one.
 */
function invokeInput(out) {
  const fields = JSON.parse(out.slice(1));
  const input = { id: fields.id, instruction: fields.instruction };
  if (fields.checkout !== undefined) input.checkout = fields.checkout;
  return { input, client: fields.client };
}

/**
 * The host input of an upload effect (H's `{ id, mimeType, bytes }`) and
 * the core's `{ sha256, path }`: its outcome's fields as JSON; the bytes
 * cross apart (a Buffer, given as a plain Uint8Array over its memory).
 */
function uploadInput(out, bytes) {
  const fields = JSON.parse(out.slice(1));
  return [
    { id: fields.id, mimeType: fields.mimeType, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    { sha256: fields.sha256, path: fields.path },
  ];
}

/** An image read's outcome: the digest (64 hex digits), then the media type. */
function imageRead(out) {
  return [out.slice(1, 65), out.slice(65)];
}

module.exports = {
  RESPOND,
  NEW_HEAD,
  FULL_HEAD,
  APART,
  AUTHENTICATE,
  BODY,
  LIST,
  LIST_ARCHIVED,
  READ,
  CREATE,
  UPDATE,
  RENAME,
  ARCHIVE,
  RESTORE,
  INVOKE,
  UPLOAD,
  IMAGE,
  DOCUMENT_READ,
  READ_IMPLEMENTATION,
  START_IMPLEMENTATION,
  REPORT,
  FIRST_HEAD,
  isResponse,
  Head,
  createInput,
  updateInput,
  renameInput,
  invokeInput,
  uploadInput,
  imageRead,
};
