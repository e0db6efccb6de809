"use strict";
// handler()'s per-request function: a Web Request through the addon's
// steps (start, or start and authenticate at once; the body; each effect
// answered by the host's function in turn) to a Web Response. Everything it
// calls is bound when its handler is made: a request adds no lookup.

const native = require("./native.js");
const { RESPOND, FIRST_HEAD, AUTHENTICATE, BODY, DOCUMENT_READ, LIST, LIST_ARCHIVED, READ, CREATE, UPDATE, RENAME, ARCHIVE, RESTORE, INVOKE, UPLOAD, IMAGE, READ_IMPLEMENTATION, START_IMPLEMENTATION, REPORT, createInput, updateInput, renameInput, invokeInput, uploadInput, imageRead } = require("./wire.js");
const { N0, N1, N2, N3, N4, N5, N6, N7, N8, N9, N10, isLength, flatWebHeaders, targetOf } = require("./headers.js");
const { verdictOf } = require("./caller.js");
const { answerDocument, answerRead, answerList, answerCreate, answerUpdate, answerRename, answerArchive, answerRestore, answerInvoke, answerUpload, answerImage } = require("./answers.js");

const { answerReadImplementation, answerStartImplementation, answerReport, implementationInput } = require("./implementations.js");

const KEEP_ALIVE = native.keepAlive();

/**
 * The request function of a handler over `core`, with its `settings` (as
 * the addon got them), its host functions `hosts` ({ caller, documents,
 * create?, update?, rename?, archive?, restore?, invoke?, upload?, images?,
 * implementations? }, checked) and the keep-alive period of its event
 * streams. With `images`, requests to `/images/<file>` are an image URL's
 * (SURFACE.md §8).
 */
function drive(core, settings, hosts, keepAliveMs) {
  const { caller, documents, create, update, rename, archive, restore, invoke, upload, images, implementations } = hosts;
  const endpoint = core.native;
  const metadata = settings.oauth !== undefined;
  const hostAllowlist = settings.allowedHosts !== undefined || settings.loopbackHosts === true;

  // One promise a request: the exchange's failure is handled in the same
  // async function (a .catch on it was a second promise and a closure).
  async function mcp(request) {
    if (images !== undefined) {
      const file = imageFile(request.url);
      if (file !== null) return image(request, file);
    }
    if (request.url.includes(DOCUMENTS)) {
      const id = documentIdOf(request.url);
      if (id !== null) return document(request, id);
    }
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
        out = native.start(endpoint, slot, method, origin, h.get(N1), h.get(N2), h.get(N3), h.get(N4), h.get(N5), h.get(N6), declared, h.get(N8), h.get(N9), h.get(N10));
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
          ? await bytesOf(request, Number(declared))
          : undefined;
      // A small body crosses in SCRATCH, by its length.
      const length = body instanceof Uint8Array && body.length <= SCRATCH.length ? (SCRATCH.set(body), body.length) : undefined;
      const crossing = length === undefined ? body : undefined;
      if (early) {
        // Origin, Host and a preflight's method header are not read (null);
        // `present` tells the addon which of the others are strings, so that
        // it makes no Node-API call for an absent one.
        // A value equal to the one the last request passed for its header
        // crosses as a bit (the addon remembers it), not as a string.
        const seen = core.seen;
        const v3 = h.get(N3), v4 = h.get(N4), v5 = h.get(N5), v6 = h.get(N6), v8 = h.get(N8), v9 = h.get(N9), v10 = h.get(N10);
        const present =
          (method === "POST" ? RUN_POST : RUN_GET) |
          bitOf(seen, 3, v3) | bitOf(seen, 4, v4) | bitOf(seen, 5, v5) | bitOf(seen, 6, v6) |
          bitOf(seen, 7, declared) | bitOf(seen, 8, v8) | bitOf(seen, 9, v9) | bitOf(seen, 10, v10);
        out = native.run(endpoint, slot, null, null, null, null,
          present & 8 ? v3 : null, present & 16 ? v4 : null, present & 32 ? v5 : null, present & 64 ? v6 : null,
          present & 128 ? declared : null, present & 256 ? v8 : null, present & 512 ? v9 : null, present & 1024 ? v10 : null,
          verdict, scopes, crossing, present | RUN_APART, length);
        // A read effect, and a response whose head is known, come apart
        // (src/wire.rs): the id alone, the body alone, their tags in
        // REGISTER (read at once: the next call writes it again). Any other
        // outcome comes whole, and goes on below.
        if (REGISTER[0] === READ) {
          const id = out;
          out = answerRead(endpoint, slot, await documents.read(who, id), "documents.read", id, READ_APART);
        }
        if (REGISTER[0] === RESPOND) return respondApart(slot, REGISTER[1], out, request);
      } else {
        out = native.authenticate(endpoint, slot, verdict, scopes, crossing, length);
      }
      if (out.charCodeAt(0) === BODY) out = await streamWebBody(endpoint, slot, request);
      // The effects, one after another (a batch asks for several).
      for (;;) {
        switch (out.charCodeAt(0)) {
          case READ: {
            const id = out.slice(1);
            out = answerRead(endpoint, slot, await documents.read(who, id), "documents.read", id);
            break;
          }
          case LIST:
            out = answerList(endpoint, slot, await documents.list(who, out.slice(1), false), "documents.list");
            break;
          case LIST_ARCHIVED:
            out = answerList(endpoint, slot, await documents.list(who, out.slice(1), true), "documents.list");
            break;
          case CREATE: {
            const { input, client } = createInput(out, native.plan(endpoint, slot));
            out = answerCreate(endpoint, slot, await create.create(who, input, client), input.plan, "create.create");
            break;
          }
          case UPDATE: {
            const { input, client } = updateInput(out, native.plan(endpoint, slot));
            out = answerUpdate(endpoint, slot, await update.update(who, input, client), input.plan, "update.update");
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
          case INVOKE: {
            const { input, client } = invokeInput(out);
            out = answerInvoke(endpoint, slot, await invoke.invoke(who, input, client), "invoke.invoke");
            break;
          }
          case UPLOAD: {
            const [input, paths] = uploadInput(out, native.imageBytes(endpoint, slot));
            out = answerUpload(endpoint, slot, await upload.upload(who, input, paths), paths.path, "upload.upload");
            break;
          }
          case READ_IMPLEMENTATION:
            out = answerReadImplementation(endpoint, slot, await implementations.read(who, out.slice(1)), "implementations.read");
            break;
          case START_IMPLEMENTATION:
            out = answerStartImplementation(endpoint, slot, await implementations.start(who, implementationInput(out)), "implementations.start");
            break;
          case REPORT:
            out = answerReport(endpoint, slot, await implementations.report(who, implementationInput(out)), "implementations.report");
            break;
          default:
            return respond(slot, out, request);
        }
      }
    } catch (error) {
      // What the addon remembers is known again only from the next value
      // passed: a failed call may have left it behind or ahead of `seen`.
      core.seen.fill(undefined);
      native.release(endpoint, slot);
      core.give(slot);
      throw error;
    }
  }

  /**
   * A request to a document's URL (`/documents/<id>`, as the reference
   * server serves it): started, its caller found, the document read by
   * `documents.read(caller, id)`; the endpoint decides every answer.
   */
  async function document(request, id) {
    const slot = core.take();
    try {
      let out = native.documentStart(endpoint, slot, request.method, id, flatWebHeaders(request.headers));
      if (out.charCodeAt(0) === AUTHENTICATE) {
        let answer = caller(request);
        if (answer !== null && typeof answer === "object" && typeof answer.then === "function") answer = await answer;
        const verdict = verdictOf(answer);
        const who = verdict === 2 ? answer.caller : answer;
        out = native.documentAuthenticate(endpoint, slot, verdict, verdict === 2 ? answer.scopes : undefined);
        if (out.charCodeAt(0) === DOCUMENT_READ) {
          out = answerDocument(endpoint, slot, await documents.read(who, out.slice(1)), "documents.read");
        }
      }
      const head = core.head(out);
      const body = core.body(out, slot);
      core.give(slot);
      // A HEAD is answered with the GET's head alone.
      return new Response(request.method === "HEAD" || body.length === 0 ? null : body, head.init);
    } catch (error) {
      native.release(endpoint, slot);
      core.give(slot);
      throw error;
    }
  }

  /**
   * A request to an image's URL: started, its caller found, the image read
   * by `images.read(caller, sha256, mimeType)`; a 200's body is the bytes.
   */
  async function image(request, file) {
    const slot = core.take();
    try {
      let out = native.imageStart(endpoint, slot, request.method, file, flatWebHeaders(request.headers));
      if (out.charCodeAt(0) === AUTHENTICATE) {
        let answer = caller(request);
        if (answer !== null && typeof answer === "object" && typeof answer.then === "function") answer = await answer;
        const verdict = verdictOf(answer);
        const who = verdict === 2 ? answer.caller : answer;
        out = native.imageAuthenticate(endpoint, slot, verdict, verdict === 2 ? answer.scopes : undefined);
        if (out.charCodeAt(0) === IMAGE) {
          const [sha256, mimeType] = imageRead(out);
          out = answerImage(endpoint, slot, await images.read(who, sha256, mimeType), "images.read");
        }
      }
      const head = core.head(out);
      const body = core.bodyStart < 0 ? native.imageBody(endpoint, slot) : out.slice(core.bodyStart);
      core.give(slot);
      return new Response(body.length > 0 ? body : null, head.init);
    } catch (error) {
      native.release(endpoint, slot);
      core.give(slot);
      throw error;
    }
  }

  /**
   * The response whose body came apart from its outcome, its head the one
   * of id `id`; the slot is free again once it is made.
   */
  function respondApart(slot, id, body, request) {
    const head = core.heads[id - FIRST_HEAD];
    const response = head.stream
      ? new Response(eventStream(request.signal, keepAliveMs), head.init)
      : new Response(body.length > 0 ? body : null, head.init);
    core.give(slot);
    return response;
  }

  /** The response of `out`; the slot is free again once it is made. */
  function respond(slot, out, request) {
    const response = webResponse(core, slot, out, request, keepAliveMs);
    core.give(slot);
    return response;
  }
  return mcp;
}

/** `run`'s `present` bits: the method is POST, or GET (not passed). */
const RUN_POST = 1 << 27;
const RUN_GET = 1 << 28;

/**
 * The `present` bit of header value `value` (index `i` of NAMED) for `run`:
 * none for null; bit 16 + i when it equals the value the last `run` passed
 * for that header (remembered by the addon); else bit i, and it is the one
 * remembered from now on.
 */
function bitOf(seen, i, value) {
  if (value === null) return 0;
  if (value === seen[i]) return 1 << (16 + i);
  seen[i] = value;
  return 1 << i;
}

/** The file of an image URL (`/images/<file>`, query left out), or null. */
function imageFile(url) {
  const path = targetOf(url);
  if (!path.startsWith("/images/")) return null;
  const query = path.indexOf("?");
  return path.slice(8, query < 0 ? path.length : query);
}

const DOCUMENTS = "/documents/";

/**
 * The document id a request URL's path names, `/documents/<id>` (one path
 * segment, percent-decoded, as the reference server reads it; a malformed
 * escape is an id no document has), or null for any other path.
 */
function documentIdOf(url) {
  const target = targetOf(url);
  const end = target.search(/[?#]/);
  const path = end < 0 ? target : target.slice(0, end);
  if (!path.startsWith(DOCUMENTS)) return null;
  const segment = path.slice(DOCUMENTS.length);
  if (segment.includes("/")) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** The addon's scratch memory (src/ffi/scratch.rs), or undefined. */
const MEMORY = native.scratch();
/**
 * Where a body of up to 16 KiB crosses: the addon's scratch memory, which
 * `run` and `authenticate` then take by the body's length alone (a number,
 * where an array costs Bun a handle and a Node-API call; and a fresh
 * `Uint8Array` from `Request.bytes()` has no buffer object yet, which Bun
 * makes, copying its bytes, the first time Node-API asks for them).
 * Written and read within one synchronous call, one buffer serves every
 * request of the thread. Empty where the engine takes no external buffer:
 * every body then crosses as an array.
 */
const SCRATCH = MEMORY === undefined ? new Uint8Array(0) : new Uint8Array(MEMORY, 0, MEMORY.byteLength - 8);
/**
 * The register after it: the tag of an outcome that came apart, then its
 * head's id. Zeros where there is no scratch memory, and no outcome is
 * asked to come apart.
 */
const REGISTER = MEMORY === undefined ? new Uint8Array(2) : new Uint8Array(MEMORY, MEMORY.byteLength - 8, 2);
/** `run`'s and `answerRead`'s `present` bits asking for outcomes apart. */
const RUN_APART = MEMORY === undefined ? 0 : 1 << 29;
const READ_APART = MEMORY === undefined ? 0 : 32;

/**
 * A Web request's whole body, of `declared` bytes: a promise of a
 * Uint8Array for one that fits SCRATCH (`bytes()` costs Bun about 130 ns
 * less than `arrayBuffer()`), else of an ArrayBuffer, whose bytes Node-API
 * reads where they are.
 */
function bytesOf(request, declared) {
  return declared <= SCRATCH.length && typeof request.bytes === "function" ? request.bytes() : request.arrayBuffer();
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

module.exports = { drive, KEEP_ALIVE };
