// No input crashes the process: 10,000 random requests (methods, headers,
// bodies mutated and in random chunkings) through a read-write handler(),
// and through Endpoint, each get a well-formed response, and no exchange is
// left.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, UNAVAILABLE, handler, scoped } from "chopin-mcp";
import { memoryHost, readWrite } from "./support/host.mjs";
import { STATUSES, generator, randomRequest } from "./support/random.mjs";

const COUNT = 10_000;
const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
const SETTINGS = { allowedOrigins: ["https://app.example"], loopbackHosts: true };

function callerOf(authorization) {
  switch (authorization) {
    case "Bearer allowed":
      return "octocat";
    case "Bearer scoped":
      return scoped("reader", "chopin:read");
    case "Bearer unavailable":
      return UNAVAILABLE;
    default:
      return undefined;
  }
}

function webRequest({ method, headers, chunks }) {
  const init = { method, headers: new Headers() };
  for (let i = 0; i < headers.length; i += 2) {
    try {
      init.headers.append(headers[i], headers[i + 1]);
    } catch {
      // A value Web Headers refuse is not sent.
    }
  }
  if (chunks !== undefined) {
    if (chunks.length === 1) init.body = chunks[0];
    else {
      let index = 0;
      init.body = new ReadableStream({
        pull(controller) {
          if (index === chunks.length) controller.close();
          else controller.enqueue(chunks[index++]);
        },
      });
      init.duplex = "half";
    }
  }
  return new Request("http://127.0.0.1/mcp", init);
}

test(`${COUNT} random requests through handler() each get a response`, async () => {
  const host = memoryHost({ denied: ["octo/secret"] });
  const mcp = handler({
    ...readWrite(host),
    ...SETTINGS,
    caller: (request) => callerOf(request.headers.get("authorization")),
  });
  const random = generator(40);
  const seen = new Map();
  for (let i = 0; i < COUNT; i++) {
    const request = webRequest(randomRequest(random));
    const response = await mcp(request);
    assert.ok(response instanceof Response, `request ${i}`);
    assert.ok(STATUSES.has(response.status), `request ${i}: status ${response.status}`);
    if (response.headers.get("content-type") === "text/event-stream" && request.method === "GET") await response.body.cancel();
    else await response.arrayBuffer();
    seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
  }
  assert.equal(mcp[IN_FLIGHT](), 0);
  // The write tools were reached too.
  for (const name of ["update", "rename", "archive", "restore"]) assert.ok(host.calls.some(([called]) => called === name), `no ${name}`);
  // The draw reaches the endpoint's answers, not only its first refusals.
  for (const status of [200, 202, 400, 401, 403, 405, 406, 413, 415, 503]) assert.ok(seen.get(status) > 0, `no ${status} in ${[...seen]}`);
});

test(`${COUNT} random requests through Endpoint each get a response`, async () => {
  const host = memoryHost({ denied: ["octo/secret"] });
  const endpoint = new Endpoint({ ...SETTINGS, create: true, update: true, rename: true, archive: true, restore: true });
  const random = generator(41);
  for (let i = 0; i < COUNT; i++) {
    const { method, headers, chunks } = randomRequest(random);
    let step = endpoint.begin(method, headers);
    while (step.kind !== "respond") {
      switch (step.kind) {
        case "authenticate": {
          const at = headers.findIndex((item, index) => index % 2 === 0 && item === "authorization");
          step = step.answer(callerOf(at < 0 ? undefined : headers[at + 1]));
          break;
        }
        case "body": {
          let open = true;
          for (const chunk of chunks ?? []) {
            if (!(open = step.push(chunk))) break;
          }
          if (open) step = step.finish();
          break;
        }
        case "list":
          step = step.answer(await host.reader.list(step.caller, step.repository));
          break;
        case "read":
          step = step.answer(await host.reader.read(step.caller, step.id));
          break;
        case "create":
          step = step.answer(await host.creator.create(step.caller, step.input));
          break;
        case "update":
          step = step.answer(await host.updater.update(step.caller, step.input));
          break;
        case "rename":
          step = step.answer(await host.renamer.rename(step.caller, step.input));
          break;
        case "archive":
          step = step.answer(await host.archiver.archive(step.caller, step.id));
          break;
        case "restore":
          step = step.answer(await host.restorer.restore(step.caller, step.id));
          break;
        default:
          assert.fail(`request ${i}: unexpected step ${step.kind}`);
      }
    }
    assert.ok(STATUSES.has(step.status), `request ${i}: status ${step.status}`);
    assert.equal(typeof step.body, "string");
  }
  assert.equal(endpoint[IN_FLIGHT](), 0);
  for (const name of ["update", "rename", "archive", "restore"]) assert.ok(host.calls.some(([called]) => called === name), `no ${name}`);
});
