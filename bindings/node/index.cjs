"use strict";
// chopin-mcp for Node and Bun: the Rust endpoint (a Node-API addon, built
// from src/ by `npm run build`) driven from JavaScript.
//
// The drive loop runs here. Each step is one call into the addon, a plain
// function taking the endpoint's number, flat arguments (strings, numbers,
// byte arrays) and returning one string (src/wire.rs has its format); each
// effect is a plain, awaited call of the host's function. Caller values stay
// in JavaScript. index.d.ts documents the API; docs/typescript.md is the
// guide.

const native = loadAddon();

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

// Outcome tags (src/wire.rs).
const RESPOND = 82; // R
const NEW_HEAD = 72; // H
const FULL_HEAD = 70; // F
const APART = 80; // P: the body crosses apart
const AUTHENTICATE = 97; // a
const BODY = 98; // b
const LIST = 108; // l
const READ = 114; // r
const CREATE = 99; // c
const UPDATE = 117; // u
const RENAME = 110; // n
const ARCHIVE = 118; // v
const RESTORE = 115; // s
const FIRST_HEAD = 0x30;

const KEEP_ALIVE = native.keepAlive();
const KEEP_ALIVE_MS = 15_000;

/**
 * A function on every handler and Endpoint counting the exchanges its
 * endpoint holds for the host (not part of the API: the tests check that
 * none is left behind).
 */
const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
function hook(target, core) {
  Object.defineProperty(target, IN_FLIGHT, { value: () => native.inFlight(core.native) });
}

// Every request header the endpoint reads (src/wire.rs NAMED): the handler
// passes their values alone, Headers.get of each being cheaper than walking
// them all. It reads content-length (the eighth) itself too.
const NAMED = native.namedHeaders();
if (NAMED.length !== 10 || NAMED[7] !== "content-length") {
  throw new Error("chopin-mcp: index.cjs and the addon disagree on the request headers; rebuild the addon");
}
const [N0, N1, N2, N3, N4, N5, N6, N7, N8, N9] = NAMED;

/** Whether `text` is a decimal number (a declared length). */
function isLength(text) {
  if (text.length === 0 || text.length > 16) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

// --- Answers the host gives the caller function ----------------------------

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

// --- Options ----------------------------------------------------------------

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

/**
 * The owner of the addon's endpoint for `settings` (the endpoint lives as
 * long as it); a setting the addon refuses is a TypeError.
 */
function nativeEndpoint(settings) {
  try {
    return native.endpoint(JSON.stringify(settings));
  } catch (error) {
    throw new TypeError(`chopin-mcp: ${error.message}`, { cause: error });
  }
}

// --- Host answers, checked and flattened for the addon --------------------

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

/** `[id, title, …]` as JSON, for the addon. */
function flatSummaries(documents, where) {
  if (!Array.isArray(documents)) fail(`${where} must give an array of { id, title } or "forbidden", not ${describe(documents)}`);
  const flat = new Array(documents.length * 2);
  for (let i = 0; i < documents.length; i++) {
    const summary = documents[i];
    if (!isObject(summary) || typeof summary.id !== "string" || typeof summary.title !== "string") {
      fail(`${where} gave ${describe(summary)} at index ${i}, not { id: string, title: string }`);
    }
    flat[2 * i] = summary.id;
    flat[2 * i + 1] = summary.title;
  }
  return JSON.stringify(flat);
}

const CREATE_KINDS = { created: 0, replayed: 1, conflict: 2, forbidden: 3, unavailable: 4 };

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
 * for absent.
 */
function answerRead(core, slot, document, where) {
  if (document === undefined || document === null) return native.answerAbsent(core, slot);
  if (typeof document !== "object" || !isDocument(document)) badDocument(where, document);
  let brief;
  if (document.brief !== undefined && document.brief !== null) {
    if (!isBrief(document.brief)) fail(`${where} gave a document whose \`brief\` is not ${BRIEF_KEYS}`);
    brief = JSON.stringify(briefOf(document.brief));
  }
  return native.answerRead(core, slot, document.id, document.title, document.source, document.revision, brief);
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
 * The two parts of an effect's outcome that carries two: the first's length
 * (`12:`), the first, then the second.
 */
function partsOf(out) {
  const colon = out.indexOf(":");
  const end = colon + 1 + Number(out.slice(1, colon));
  return [out.slice(colon + 1, end), out.slice(end)];
}

/**
 * The host input of a create effect: its outcome carries the fields as
 * JSON; the plan crosses apart.
 */
function createInput(out, plan) {
  const fields = JSON.parse(out.slice(1));
  return {
    idempotencyKey: fields.idempotencyKey,
    repository: fields.repository,
    baseBranch: fields.baseBranch,
    baseCommit: fields.baseCommit,
    title: fields.title,
    brief: fields.brief,
    plan,
    fingerprint: fields.fingerprint,
  };
}

/** The host input of an update effect: its outcome's fields as JSON, and the plan. */
function updateInput(out, plan) {
  const fields = JSON.parse(out.slice(1));
  return { id: fields.id, revision: fields.revision, plan, idempotencyKey: fields.idempotencyKey, fingerprint: fields.fingerprint };
}

/** The host input of a rename effect's outcome: the locator, then the title. */
function renameInput(out) {
  const [id, title] = partsOf(out);
  return { id, title };
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

const RENAME_KINDS = { renamed: 0, archived: 1, conflict: 2, forbidden: 3, unavailable: 4 };
const ARCHIVE_KINDS = { archived: 0, forbidden: 3, unavailable: 4 };
const RESTORE_KINDS = { restored: 0, forbidden: 3, unavailable: 4 };

/** Answers a rename effect: { kind: "renamed", document: { id, title } } or a code. */
function answerRename(core, slot, answer, where) {
  const kind = kindOf(answer, RENAME_KINDS, where);
  if (kind !== 0) return native.answerRename(core, slot, kind);
  const [id, title] = stringsOf(answer, ["id", "title"], where);
  return native.answerRename(core, slot, kind, id, title);
}

/** Answers an archive effect: { kind: "archived", document: { id, title, archivedAt } } or a code. */
function answerArchive(core, slot, answer, where) {
  const kind = kindOf(answer, ARCHIVE_KINDS, where);
  if (kind !== 0) return native.answerArchive(core, slot, kind);
  const [id, title, archivedAt] = stringsOf(answer, ["id", "title", "archivedAt"], where);
  return native.answerArchive(core, slot, kind, id, title, archivedAt);
}

/** Answers a restore effect: { kind: "restored", document: { id, title } } or a code. */
function answerRestore(core, slot, answer, where) {
  const kind = kindOf(answer, RESTORE_KINDS, where);
  if (kind !== 0) return native.answerRestore(core, slot, kind);
  const [id, title] = stringsOf(answer, ["id", "title"], where);
  return native.answerRestore(core, slot, kind, id, title);
}

/** The verdict code for an answer of the caller function (src/lib.rs). */
function verdictOf(answer) {
  if (answer === undefined || answer === null) return 0;
  if (answer === UNAVAILABLE) return 3;
  if (answer instanceof Scoped) return 2;
  return 1;
}

// --- The endpoint shared by `handler` and `Endpoint` ----------------------

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
   * is cheaper than reading an object's.
   */
  get init() {
    if (this.web === undefined) this.web = { status: this.status, headers: new Headers(this.headers) };
    return this.web;
  }
}

/** More slots than an endpoint ever has in flight (src/lib.rs MAX_SLOTS). */
const SLOTS = 2 ** 24;
/**
 * Slot generations count modulo this (even, so odd still means held), so
 * that generation * SLOTS + slot stays an exact number.
 */
const GENERATIONS = 2 ** 28;

/** The addon's endpoint with its exchange slots and the heads it named. */
class Core {
  constructor(settings) {
    this.owner = nativeEndpoint(settings);
    /** The endpoint's number, which the addon's functions take. */
    this.native = native.endpointId(this.owner);
    this.heads = [];
    this.free = [];
    this.next = 0;
    /** Each slot's generation: odd while an exchange holds it. */
    this.generations = [];
    /**
     * Releases the Endpoint exchanges hosts dropped unanswered, once
     * collected; each is known by its slot and generation, one number.
     */
    this.dropped = new FinalizationRegistry((held) => this.reclaim(held % SLOTS, Math.floor(held / SLOTS)));
    this.budget = native.budget(this.native);
    /** Where the body of the outcome `head` last read starts. */
    this.bodyStart = 0;
  }

  take() {
    const slot = this.free.length > 0 ? this.free.pop() : this.next++;
    this.generations[slot] = ((this.generations[slot] ?? 0) + 1) % GENERATIONS;
    return slot;
  }

  give(slot) {
    this.generations[slot] = (this.generations[slot] + 1) % GENERATIONS;
    this.free.push(slot);
  }

  /** Releases `slot` if the exchange of `generation` still holds it. */
  reclaim(slot, generation) {
    if (this.generations[slot] === generation) {
      native.release(this.native, slot);
      this.give(slot);
    }
  }

  /**
   * The head of the response outcome `out`; sets `bodyStart` (-1 when the
   * body crosses apart).
   */
  head(out) {
    let tag = out.charCodeAt(0);
    let at = 0;
    if (tag === APART) {
      at = 1;
      tag = out.charCodeAt(1);
    }
    if (tag === RESPOND) {
      this.bodyStart = at === 0 ? 2 : -1;
      return this.heads[out.charCodeAt(at + 1) - FIRST_HEAD];
    }
    const from = at + (tag === NEW_HEAD ? 2 : 1);
    const end = out.indexOf("\0", from);
    const head = new Head(out.slice(from, end));
    if (tag === NEW_HEAD) this.heads[out.charCodeAt(at + 1) - FIRST_HEAD] = head;
    this.bodyStart = at === 0 ? end + 1 : -1;
    return head;
  }

  /**
   * The body of the response outcome `out` in `slot`, after `head(out)`:
   * the rest of it, or, for a body that crosses apart, that body.
   */
  body(out, slot) {
    return this.bodyStart < 0 ? native.body(this.native, slot) : out.slice(this.bodyStart);
  }

  tools() {
    return JSON.parse(native.tools(this.native));
  }
}

function isResponse(tag) {
  return tag === RESPOND || tag === NEW_HEAD || tag === FULL_HEAD || tag === APART;
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

// --- handler(): the seed's API over Web Request and Response ----------------

/** The write capabilities, each offered when its option is given. */
const WRITES = ["create", "update", "rename", "archive", "restore"];
const HANDLER_OWN = ["caller", "documents", ...WRITES, "keepAliveMs"];

/** What each write capability's host object is, for a TypeError. */
const WRITE_SHAPES = {
  create: "{ create(caller, input) }",
  update: "{ update(caller, input) }",
  rename: "{ rename(caller, input) }",
  archive: "{ archive(caller, id) }",
  restore: "{ restore(caller, id) }",
};

function handler(options) {
  if (!isObject(options)) fail(`handler(options) takes an options object, not ${describe(options)}`);
  const settings = settingsOf(options, HANDLER_OWN, "handler(options)");
  const { caller, documents, create, update, rename, archive, restore } = options;
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
  let keepAliveMs = KEEP_ALIVE_MS;
  if (options.keepAliveMs !== undefined) {
    keepAliveMs = options.keepAliveMs;
    if (!Number.isSafeInteger(keepAliveMs) || keepAliveMs < 1 || keepAliveMs > 2_147_483_647) {
      fail(`handler(options): \`keepAliveMs\` must be a whole number of milliseconds from 1, not ${describe(keepAliveMs)}`);
    }
  }
  const core = new Core(settings);
  const endpoint = core.native;
  const metadata = settings.oauth !== undefined;
  const hostAllowlist = settings.allowedHosts !== undefined || settings.loopbackHosts === true;

  // One promise a request: the exchange's failure is handled in the same
  // async function (a .catch on it was a second promise and a closure).
  async function mcp(request) {
    const slot = core.take();
    try {
      const method = request.method;
      if (metadata && request.url.includes("/.well-known/oauth-protected-resource")) {
        const out = native.metadata(endpoint, method, targetOf(request.url), flatWebHeaders(request.headers));
        if (out !== null) {
          return respond(slot, out, request);
        }
      }
      const h = request.headers;
      const origin = h.get(N0);
      const declared = h.get(N7);
      // Before authentication the endpoint answers a CORS preflight (OPTIONS
      // with an Origin), a method other than GET and POST (405), a refused
      // Origin and, with a host allowlist, a refused Host (403). A GET or POST
      // without an Origin, on a handler without a host allowlist, passes all of
      // them: its caller is found first, and the addon starts and
      // authenticates in one call (the Host and a preflight's method header
      // then decide nothing and are not read). Any other request starts first.
      const early = origin === null && !hostAllowlist && (method === "POST" || method === "GET");
      let out;
      if (!early) {
        out = native.start(endpoint, slot, method, origin, h.get(N1), h.get(N2), h.get(N3), h.get(N4), h.get(N5), h.get(N6), declared, h.get(N8), h.get(N9));
        if (out.charCodeAt(0) !== AUTHENTICATE) {
          return respond(slot, out, request);
        }
      }
      let answer = caller(request);
      if (answer !== null && typeof answer === "object" && typeof answer.then === "function") answer = await answer;
      const verdict = verdictOf(answer);
      let who = answer;
      let scopes;
      if (verdict === 2) {
        who = answer.caller;
        scopes = answer.scopes;
      }
      // The body of an authenticated POST whose declared length is within the
      // budget (the server framed it) is read whole and goes with the answer,
      // as Endpoint::handle takes a held body. One over the budget, or without
      // a declared length, is left to the body step.
      const body =
        (verdict === 1 || verdict === 2) && declared !== null && method === "POST" && isLength(declared) && Number(declared) <= core.budget
          ? await bytesOf(request)
          : undefined;
      out = early
        ? native.run(endpoint, slot, method, null, null, null, h.get(N3), h.get(N4), h.get(N5), h.get(N6), declared, h.get(N8), h.get(N9), verdict, scopes, body)
        : native.authenticate(endpoint, slot, verdict, scopes, body);
      if (out.charCodeAt(0) === BODY) out = await streamWebBody(endpoint, slot, request);
      // The effects, one after another (a batch asks for several).
      for (;;) {
        switch (out.charCodeAt(0)) {
          case READ:
            out = answerRead(endpoint, slot, await documents.read(who, out.slice(1)), "documents.read");
            break;
          case LIST:
            out = answerList(endpoint, slot, await documents.list(who, out.slice(1)), "documents.list");
            break;
          case CREATE: {
            const input = createInput(out, native.plan(endpoint, slot));
            out = answerCreate(endpoint, slot, await create.create(who, input), input.plan, "create.create");
            break;
          }
          case UPDATE: {
            const input = updateInput(out, native.plan(endpoint, slot));
            out = answerUpdate(endpoint, slot, await update.update(who, input), input.plan, "update.update");
            break;
          }
          case RENAME:
            out = answerRename(endpoint, slot, await rename.rename(who, renameInput(out)), "rename.rename");
            break;
          case ARCHIVE:
            out = answerArchive(endpoint, slot, await archive.archive(who, out.slice(1)), "archive.archive");
            break;
          case RESTORE:
            out = answerRestore(endpoint, slot, await restore.restore(who, out.slice(1)), "restore.restore");
            break;
          default:
            return respond(slot, out, request);
        }
      }
    } catch (error) {
      native.release(endpoint, slot);
      core.give(slot);
      throw error;
    }
  }

  /** The response of `out`; the slot is free again once it is made. */
  function respond(slot, out, request) {
    const response = webResponse(core, slot, out, request, keepAliveMs);
    core.give(slot);
    return response;
  }

  hook(mcp, core);
  return mcp;
}

/** The path and query of a request URL. */
function targetOf(url) {
  const scheme = url.indexOf("://");
  const path = scheme < 0 ? 0 : url.indexOf("/", scheme + 3);
  return path < 0 ? "/" : url.slice(path);
}

/**
 * A Web request's whole body (a promise of an ArrayBuffer). Not a
 * Uint8Array: the engine makes a fresh typed array's buffer the first time
 * Node-API asks for its bytes (Bun: about 0.3 µs a request), where an
 * ArrayBuffer's bytes are there.
 */
function bytesOf(request) {
  return request.arrayBuffer();
}

/**
 * Pushes a Web request's body into the exchange in `slot` chunk by chunk,
 * stopping at the chunk that crosses the budget: the reader is cancelled
 * and the rest never read.
 */
async function streamWebBody(endpoint, slot, request) {
  const body = request.body;
  if (body === null) return native.finish(endpoint, slot, undefined);
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return native.finish(endpoint, slot, undefined);
      const out = native.push(endpoint, slot, value);
      if (out.charCodeAt(0) !== BODY) {
        reader.cancel().catch(() => {});
        return out;
      }
    }
  } catch (error) {
    reader.cancel(error).catch(() => {});
    throw error;
  }
}

/** The Web Response of the response outcome `out` in `slot`. */
function webResponse(core, slot, out, request, keepAliveMs) {
  const head = core.head(out);
  if (head.stream) return new Response(eventStream(request.signal, keepAliveMs), head.init);
  const body = core.body(out, slot);
  return new Response(body.length > 0 ? body : null, head.init);
}

/**
 * The body of an accepted GET: a keep-alive comment at once, then one every
 * `every` ms while the reader keeps up, until the request is aborted or the
 * stream cancelled. The timer is unref'd: an open stream never keeps a
 * process alive.
 */
function eventStream(signal, every) {
  let timer;
  let stop;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(KEEP_ALIVE.slice());
      timer = setInterval(() => {
        if (controller.desiredSize > 0) controller.enqueue(KEEP_ALIVE.slice());
      }, every);
      if (typeof timer.unref === "function") timer.unref();
      stop = () => {
        clearInterval(timer);
        try {
          controller.close();
        } catch {
          // Already closed or cancelled.
        }
      };
      if (signal) {
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      }
    },
    cancel() {
      clearInterval(timer);
      if (signal) signal.removeEventListener("abort", stop);
    },
  });
}

// --- Endpoint: the effect loop for hosts without Web Requests ------------


const ENDPOINT_OWN = WRITES;
const KINDS = {
  [AUTHENTICATE]: "authenticate",
  [BODY]: "body",
  [LIST]: "list",
  [READ]: "read",
  [CREATE]: "create",
  [UPDATE]: "update",
  [RENAME]: "rename",
  [ARCHIVE]: "archive",
  [RESTORE]: "restore",
};

/** The steps that name their document by `id`, and those with an `input`. */
const LOCATED = ["read", "archive", "restore"];
const WITH_INPUT = ["create", "update", "rename"];

class Endpoint {
  #core;

  constructor(options) {
    const settings = settingsOf(options, ENDPOINT_OWN, "new Endpoint(options)");
    for (const name of WRITES) {
      const offered = options === undefined ? undefined : options[name];
      if (offered !== undefined && typeof offered !== "boolean") {
        fail(`new Endpoint(options): \`${name}\` must be true or false, not ${describe(offered)}`);
      }
      settings[name] = offered === true;
    }
    this.#core = new Core(settings);
    hook(this, this.#core);
  }

  /** The most body bytes a request may carry. */
  get bodyBudget() {
    return this.#core.budget;
  }

  /** The tools this endpoint offers, as `tools/list` gives them. */
  tools() {
    return this.#core.tools();
  }

  /**
   * Starts the exchange of a request: its method and headers (Node's
   * `rawHeaders`, a Web `Headers`, or an object of names to values).
   */
  begin(method, headers) {
    if (typeof method !== "string") fail(`begin(method, headers): method must be a string, not ${describe(method)}`);
    const flat = flatHeaders(headers);
    const core = this.#core;
    const slot = core.take();
    let out;
    try {
      out = native.startListed(core.native, slot, method, flat);
    } catch (error) {
      core.give(slot);
      throw error;
    }
    const exchange = new Exchange(core, slot, out);
    // An exchange the host drops unanswered (an exception between two
    // steps) is released when it is collected.
    if (exchange.kind !== "respond") core.dropped.register(exchange, core.generations[slot] * SLOTS + slot);
    return exchange;
  }

  /**
   * Protected Resource Metadata (RFC 9728) when `target` is its path and the
   * endpoint has `oauth`, else `undefined`: call it before routing.
   */
  metadata(method, target, headers) {
    if (typeof method !== "string" || typeof target !== "string") {
      fail("metadata(method, target, headers): method and target are strings");
    }
    const core = this.#core;
    const out = native.metadata(core.native, method, target, flatHeaders(headers));
    if (out === null) return undefined;
    const head = core.head(out);
    return { status: head.status, headers: { ...head.headers }, body: core.body(out, -1) };
  }
}

/**
 * One request's exchange: `kind` says what it waits for, and the matching
 * method answers it, until `kind` is "respond".
 */
class Exchange {
  #core;
  #slot;
  #payload = "";
  #input = undefined;
  #head = null;
  #body = "";

  constructor(core, slot, out) {
    this.#core = core;
    this.#slot = slot;
    this.kind = "respond";
    this.caller = undefined;
    this.#settle(out);
  }

  #settle(out) {
    const tag = out.charCodeAt(0);
    if (isResponse(tag)) {
      const core = this.#core;
      this.#head = core.head(out);
      this.#body = core.body(out, this.#slot);
      this.kind = "respond";
      core.give(this.#slot);
      this.#slot = -1;
      return;
    }
    this.kind = KINDS[tag];
    if (tag === CREATE) this.#input = createInput(out, native.plan(this.#core.native, this.#slot));
    else if (tag === UPDATE) this.#input = updateInput(out, native.plan(this.#core.native, this.#slot));
    else if (tag === RENAME) this.#input = renameInput(out);
    else this.#payload = out.length > 1 ? out.slice(1) : "";
  }

  /** Fails unless the exchange is at `kind` (or one of the kinds listed). */
  #expect(kind, what) {
    if (this.kind === kind || (typeof kind !== "string" && kind.includes(this.kind))) return;
    const named = typeof kind === "string" ? `"${kind}"` : kind.map((name) => `"${name}"`).join(" or ");
    fail(`${what} answers a ${named} step, but this exchange is at "${this.kind}"`);
  }

  /** The authenticate step: the caller the credentials name, or not. */
  #authenticate(answer) {
    const verdict = verdictOf(answer);
    const core = this.#core;
    let out;
    if (verdict === 2) {
      this.caller = answer.caller;
      out = native.authenticate(core.native, this.#slot, 2, answer.scopes);
    } else {
      this.caller = verdict === 1 ? answer : undefined;
      out = native.authenticate(core.native, this.#slot, verdict);
    }
    this.#settle(out);
  }

  /** Answers the step the exchange is at (authenticate or an effect). */
  answer(value) {
    const core = this.#core;
    switch (this.kind) {
      case "authenticate":
        this.#authenticate(value);
        break;
      case "read":
        this.#settle(answerRead(core.native, this.#slot, value, "answer(document)"));
        break;
      case "list":
        this.#settle(answerList(core.native, this.#slot, value, "answer(documents)"));
        break;
      case "create":
        this.#settle(answerCreate(core.native, this.#slot, value, this.#input.plan, "answer(created)"));
        break;
      case "update":
        this.#settle(answerUpdate(core.native, this.#slot, value, this.#input.plan, "answer(updated)"));
        break;
      case "rename":
        this.#settle(answerRename(core.native, this.#slot, value, "answer(renamed)"));
        break;
      case "archive":
        this.#settle(answerArchive(core.native, this.#slot, value, "answer(archived)"));
        break;
      case "restore":
        this.#settle(answerRestore(core.native, this.#slot, value, "answer(restored)"));
        break;
      default:
        fail(`answer() has nothing to answer: this exchange is at "${this.kind}"`);
    }
    return this;
  }

  /** The repository a "list" step asks for. */
  get repository() {
    this.#expect("list", "repository");
    return this.#payload;
  }

  /** The document a "read" step asks for (an id), or an "archive" or "restore" step (an id or URL, as sent). */
  get id() {
    this.#expect(LOCATED, "id");
    return this.#payload;
  }

  /** What a "create", "update" or "rename" step asks the host to store. */
  get input() {
    this.#expect(WITH_INPUT, "input");
    return this.#input;
  }

  /**
   * Takes in the next body chunk: true to go on reading; false when the
   * chunk crossed the budget (the exchange is at "respond", 413: stop
   * reading the request).
   */
  push(chunk) {
    this.#expect("body", "push(chunk)");
    if (!(chunk instanceof Uint8Array)) fail(`push(chunk): a chunk is a Uint8Array (or Buffer), not ${describe(chunk)}`);
    const out = native.push(this.#core.native, this.#slot, chunk);
    if (out.charCodeAt(0) === BODY) return true;
    this.#settle(out);
    return false;
  }

  /** The body is complete (with a last chunk, if given): go on. */
  finish(chunk) {
    this.#expect("body", "finish()");
    if (chunk !== undefined && !(chunk instanceof Uint8Array)) {
      fail(`finish(chunk): a chunk is a Uint8Array (or Buffer), not ${describe(chunk)}`);
    }
    this.#settle(native.finish(this.#core.native, this.#slot, chunk));
    return this;
  }

  /**
   * Reads the body from `source` (a Node readable such as an
   * `IncomingMessage`, a Web `ReadableStream`, or any async iterable of
   * byte chunks) and finishes it; stops at the chunk that crosses the
   * budget, leaving the rest of the source unread.
   */
  async readFrom(source) {
    this.#expect("body", "readFrom(source)");
    if (source !== null && typeof source === "object" && typeof source.getReader === "function") {
      const reader = source.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return this.finish();
        if (!this.push(value)) {
          reader.cancel().catch(() => {});
          return this;
        }
      }
    }
    // A Node stream's own iterator would destroy the stream (and with an
    // IncomingMessage, its socket and the response not yet sent) when the
    // loop stops early; this one leaves it paused.
    const chunks =
      source !== null && typeof source === "object" && typeof source.iterator === "function"
        ? source.iterator({ destroyOnReturn: false })
        : source;
    for await (const chunk of chunks) {
      if (!this.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) return this;
    }
    return this.finish();
  }

  /** The response status ("respond"). */
  get status() {
    this.#expect("respond", "status");
    return this.#head.status;
  }

  /** The response headers, names in lower case ("respond"). */
  get headers() {
    this.#expect("respond", "headers");
    return this.#head.headers;
  }

  /** The response body, UTF-8 text; empty for an event stream ("respond"). */
  get body() {
    this.#expect("respond", "body");
    return this.#body;
  }

  /**
   * True for an accepted GET: keep the response open, writing
   * `KEEP_ALIVE` every 15 s or so until the client leaves ("respond").
   */
  get stream() {
    this.#expect("respond", "stream");
    return this.#head.stream;
  }

  /** Gives up on the exchange (the host failed): its state is dropped. */
  abandon() {
    if (this.#slot >= 0) {
      native.release(this.#core.native, this.#slot);
      this.#core.give(this.#slot);
      this.#slot = -1;
      this.kind = "abandoned";
    }
  }
}

if (typeof Symbol.dispose === "symbol") {
  Exchange.prototype[Symbol.dispose] = Exchange.prototype.abandon;
}

// --- Tools ------------------------------------------------------------------

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
  return new Core(settings).tools();
}

/** What a read-only handler's `tools/list` gives. */
const TOOLS = deepFreeze(tools());

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
};
