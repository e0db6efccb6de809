"use strict";
// The endpoint shared by `handler` and `Endpoint`: the addon's endpoint
// with its exchange slots and the response heads it named.

const native = require("./native.js");
const { APART, RESPOND, NEW_HEAD, FIRST_HEAD, Head } = require("./wire.js");

/**
 * A function on every handler and Endpoint counting the exchanges its
 * endpoint holds for the host (not part of the API: the tests check that
 * none is left behind).
 */
const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
function hook(target, core) {
  Object.defineProperty(target, IN_FLIGHT, { value: () => native.inFlight(core.native) });
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

/** More slots than an endpoint ever has in flight (src/exchanges.rs MAX_SLOTS). */
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
    /**
     * The named headers' values the last `run` passed (the addon
     * remembers them too: drive.js).
     */
    this.seen = new Array(11).fill(undefined);
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

module.exports = { Core, SLOTS, hook };
