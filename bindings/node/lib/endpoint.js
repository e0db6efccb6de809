"use strict";
// Endpoint: the effect loop for hosts without Web Requests. Each request is
// an Exchange whose `kind` says which step it waits for; the host answers
// it, step by step, until it is at "respond".

const native = require("./native.js");
const { AUTHENTICATE, BODY, LIST, LIST_ARCHIVED, READ, CREATE, UPDATE, RENAME, ARCHIVE, RESTORE, INVOKE, UPLOAD, IMAGE, READ_IMPLEMENTATION, START_IMPLEMENTATION, REPORT, isResponse, createInput, updateInput, renameInput, invokeInput, uploadInput, imageRead } = require("./wire.js");
const { fail, describe, settingsOf, WRITES, ENDPOINT_OWN } = require("./options.js");
const { flatHeaders } = require("./headers.js");
const { verdictOf } = require("./caller.js");
const { answerRead, answerList, answerCreate, answerUpdate, answerRename, answerArchive, answerRestore, answerInvoke, answerUpload, answerImage } = require("./answers.js");
const { Core, SLOTS, hook } = require("./core.js");
const { answerReadImplementation, answerStartImplementation, answerReport, implementationInput } = require("./implementations.js");

const KINDS = {
  [AUTHENTICATE]: "authenticate",
  [BODY]: "body",
  [LIST]: "list",
  [LIST_ARCHIVED]: "list",
  [READ]: "read",
  [CREATE]: "create",
  [UPDATE]: "update",
  [RENAME]: "rename",
  [ARCHIVE]: "archive",
  [RESTORE]: "restore",
  [INVOKE]: "invoke",
  [UPLOAD]: "upload",
  [IMAGE]: "image",
  [READ_IMPLEMENTATION]: "read_implementation",
  [START_IMPLEMENTATION]: "start_implementation",
  [REPORT]: "report",
};

/** The steps that name their document by `id`, and those with an `input`. */
const LOCATED = ["read", "archive", "restore", "read_implementation"];
const WITH_INPUT = ["create", "update", "rename", "invoke", "upload", "start_implementation", "report"];

class Endpoint {
  #core;

  constructor(options) {
    const settings = settingsOf(options, [...ENDPOINT_OWN, "implementations"], "new Endpoint(options)");
    for (const name of WRITES) {
      const offered = options === undefined ? undefined : options[name];
      if (offered !== undefined && typeof offered !== "boolean") {
        fail(`new Endpoint(options): \`${name}\` must be true or false, not ${describe(offered)}`);
      }
      settings[name] = offered === true;
    }
    const implementations = options === undefined ? undefined : options.implementations;
    if (implementations !== undefined && implementations !== true && implementations !== "read" && implementations !== false) {
      fail(`new Endpoint(options): \`implementations\` must be true, "read" or false, not ${describe(implementations)}`);
    }
    if (implementations === true) settings.implementations = "all";
    else if (implementations === "read") settings.implementations = "read";
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
   * Starts the exchange of a request to an image's URL, `/images/<file>`
   * (SURFACE.md §8): "authenticate", then "image" (answer with
   * `{ mimeType, bytes }`, undefined, or "unavailable"), then "respond",
   * whose `body` is the image's bytes (a Uint8Array) for a 200.
   */
  image(method, file, headers) {
    if (typeof method !== "string" || typeof file !== "string") {
      fail("image(method, file, headers): method and file are strings");
    }
    const flat = flatHeaders(headers);
    const core = this.#core;
    const slot = core.take();
    let out;
    try {
      out = native.imageStart(core.native, slot, method, file, flat);
    } catch (error) {
      core.give(slot);
      throw error;
    }
    const exchange = new Exchange(core, slot, out, true);
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
  #client = undefined;
  #head = null;
  #body = "";
  #paths = undefined;
  /** An image URL's exchange (`Endpoint.image`). */
  #image = false;
  #archived = false;

  constructor(core, slot, out, image = false) {
    this.#core = core;
    this.#slot = slot;
    this.#image = image;
    this.kind = "respond";
    this.caller = undefined;
    this.#settle(out);
  }

  #settle(out) {
    const tag = out.charCodeAt(0);
    if (isResponse(tag)) {
      const core = this.#core;
      this.#head = core.head(out);
      this.#body = this.#image && core.bodyStart < 0 ? new Uint8Array(native.imageBody(core.native, this.#slot)) : core.body(out, this.#slot);
      this.kind = "respond";
      core.give(this.#slot);
      this.#slot = -1;
      return;
    }
    this.kind = KINDS[tag];
    this.#archived = tag === LIST_ARCHIVED;
    if (tag === CREATE || tag === UPDATE) {
      const read = tag === CREATE ? createInput : updateInput;
      ({ input: this.#input, client: this.#client } = read(out, native.plan(this.#core.native, this.#slot)));
    } else if (tag === RENAME) this.#input = renameInput(out);
    else if (tag === INVOKE) ({ input: this.#input, client: this.#client } = invokeInput(out));
    else if (tag === UPLOAD) [this.#input, this.#paths] = uploadInput(out, native.imageBytes(this.#core.native, this.#slot));
    else if (tag === IMAGE) [this.#input, this.#paths] = [undefined, imageRead(out)];
    else if (tag === START_IMPLEMENTATION || tag === REPORT) this.#input = implementationInput(out);
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
    const authenticate = this.#image ? native.imageAuthenticate : native.authenticate;
    if (verdict === 2) {
      this.caller = answer.caller;
      out = authenticate(core.native, this.#slot, 2, answer.scopes);
    } else {
      this.caller = verdict === 1 ? answer : undefined;
      out = authenticate(core.native, this.#slot, verdict);
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
      case "invoke":
        this.#settle(answerInvoke(core.native, this.#slot, value, "answer(invoked)"));
        break;
      case "upload":
        this.#settle(answerUpload(core.native, this.#slot, value, this.#paths.path, "answer(uploaded)"));
        break;
      case "image":
        this.#settle(answerImage(core.native, this.#slot, value, "answer(image)"));
        break;
      case "read_implementation":
        this.#settle(answerReadImplementation(core.native, this.#slot, value, "answer(implementation)"));
        break;
      case "start_implementation":
        this.#settle(answerStartImplementation(core.native, this.#slot, value, "answer(claim)"));
        break;
      case "report":
        this.#settle(answerReport(core.native, this.#slot, value, "answer(report)"));
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

  /** Whether a "list" step asks for archived documents too (`includeArchived`). */
  get includeArchived() {
    this.#expect("list", "includeArchived");
    return this.#archived;
  }

  /** The document a "read" step asks for (an id), or an "archive", "restore" or "read_implementation" step (an id or URL, as sent). */
  get id() {
    this.#expect(LOCATED, "id");
    return this.#payload;
  }

  /** The digest an "upload" step's bytes have, or an "image" step asks for (64 lowercase hex digits). */
  get sha256() {
    this.#expect(["upload", "image"], "sha256");
    return this.kind === "upload" ? this.#paths.sha256 : this.#paths[0];
  }

  /** Where an "upload" step's image will be served (`/images/<sha256>.<extension>`). */
  get path() {
    this.#expect("upload", "path");
    return this.#paths.path;
  }

  /** The type an "image" step's URL names (`image/png`, …). */
  get mimeType() {
    this.#expect("image", "mimeType");
    return this.#paths[1];
  }

  /** What a "create", "update", "rename", "invoke", "upload", "start_implementation" or "report" step asks of the host. */
  get input() {
    this.#expect(WITH_INPUT, "input");
    return this.#input;
  }

  /** Who a "create", "update" or "invoke" step's client says it is: `{ name, version }` (SURFACE.md §10; `unknown` when not said). */
  get client() {
    this.#expect(["create", "update", "invoke"], "client");
    return this.#client;
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

  /**
   * The response body, UTF-8 text; empty for an event stream; an image
   * URL's 200: the image's bytes, a Uint8Array ("respond").
   */
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

module.exports = { Endpoint };
