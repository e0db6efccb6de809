// Type checks of index.d.ts (npm run typecheck): the uses a TypeScript
// project makes compile, and the mistakes below are refused. Not run.
import { Endpoint, KEEP_ALIVE, TOOLS, UNAVAILABLE, handler, prepareUpdate, rules, scoped, tools } from "chopin-mcp";
import type {
  ClientInfo,
  CreateAnswer,
  CreateDocumentInput,
  Document,
  DocumentReader,
  ImplementationHost,
  ImplementationState,
  InvokeAnswer,
  InvokePlannerInput,
  ReportAnswer,
  StartImplementationAnswer,
  RenameAnswer,
  Step,
  Tool,
  UpdateAnswer,
  UpdateDocumentInput,
} from "chopin-mcp";

const document: Document = { id: "d", title: "T", source: "# T\n", revision: 4 };

// DocumentReader without a type argument, its callbacks' parameters inferred.
function reader(): DocumentReader {
  return {
    async list(caller, repository) {
      return caller === "octocat" && repository === "o/r" ? [{ id: document.id, title: document.title }] : [];
    },
    async read(caller, id) {
      return caller === "octocat" && id === document.id ? document : undefined;
    },
  };
}

// The seed's shape: the caller type inferred from `caller`.
const mcp: (request: Request) => Promise<Response> = handler({
  caller: (request) => (request.headers.get("authorization") === "Bearer allowed" ? "octocat" : undefined),
  documents: reader(),
  create: {
    async create(_caller: string, input: CreateDocumentInput): Promise<CreateAnswer> {
      return {
        kind: "created",
        document: { id: "c", title: input.title, brief: input.brief, source: input.plan, revision: 0, url: "/c" },
      };
    },
  },
  allowedOrigins: ["https://app.example"],
  keepAliveMs: 10_000,
});
void mcp;

// A typed caller reaches the host functions typed; scoped and UNAVAILABLE answer too.
type User = { login: string };
handler<User>({
  caller: async (request) => (request.headers.has("x") ? scoped({ login: "a" }, "chopin:read") : UNAVAILABLE),
  documents: {
    list: (user) => [{ id: user.login, title: "t" }],
    read: (user) => (user.login ? document : null),
  },
});

// The lifecycle: each write tool's host object, a denied list, the write scope.
handler({
  caller: () => scoped("octocat", ["chopin:read", "chopin:write"]),
  documents: { list: () => "forbidden", read: () => undefined },
  update: {
    async update(_caller, input: UpdateDocumentInput, client: ClientInfo): Promise<UpdateAnswer> {
      // SURFACE.md §11: the client, for attribution.
      const _attribution: string = `${client.name} ${client.version}`;
      return input.revision === 4
        ? { kind: "updated", document: { id: input.id, title: "T", source: input.plan, revision: 5, url: "/d" } }
        : { kind: "revision-conflict", revision: 4 };
    },
  },
  rename: { rename: (_caller, input) => ({ kind: "renamed", document: { id: input.id, title: input.title } }) },
  archive: { archive: (_caller, id) => ({ kind: "archived", document: { id, title: "T", archivedAt: "2026-08-23T12:34:56.000Z" } }) },
  restore: { restore: (_caller, id) => ({ kind: "restored", document: { id, title: "T" } }) },
  invoke: {
    invoke(_caller, input: InvokePlannerInput, client: ClientInfo): InvokeAnswer {
      return input.checkout === undefined
        ? { kind: "invoked", document: { id: input.id, title: client.name, url: "/d" } }
        : { kind: "refused", code: "checkout-unverified" };
    },
  },
  scopes: { read: "plans:read", create: "plans:create", write: "plans:write" },
});

const listed: readonly Tool[] = TOOLS;
const offered: Tool[] = tools({ create: true });
const pattern: string = TOOLS[0]!.inputSchema.properties.repository.pattern;
const comment: string = KEEP_ALIVE;
void [listed, offered, pattern, comment];

// The effect loop narrows each step by its kind.
async function serve(endpoint: Endpoint, method: string, rawHeaders: string[], body: AsyncIterable<Uint8Array>) {
  let step: Step<User> = endpoint.begin<User>(method, rawHeaders);
  while (step.kind !== "respond") {
    switch (step.kind) {
      case "authenticate":
        step = step.answer({ login: "octocat" });
        break;
      case "body":
        step = await step.readFrom(body);
        break;
      case "list":
        step = step.answer([{ id: step.caller.login, title: step.repository }]);
        break;
      case "read":
        step = step.answer(step.id === "d" ? document : undefined);
        break;
      case "create":
        step = step.answer({ kind: "conflict" });
        break;
      case "update": {
        const client: ClientInfo = step.client;
        step = step.answer({ kind: "revision-conflict", revision: step.input.revision + client.name.length });
        break;
      }
      case "rename":
        step = step.answer({ kind: "renamed", document: { id: step.input.id, title: step.input.title } });
        break;
      case "archive":
        step = step.answer({ kind: "forbidden" });
        break;
      case "restore":
        step = step.answer({ kind: "restored", document: { id: step.id, title: "T" } });
        break;
      case "invoke":
        step = step.answer({ kind: "invoked", document: { id: step.input.id, title: step.client.name, url: "/d" } });
        break;
    }
  }
  const answer: { status: number; headers: Readonly<Record<string, string>>; body: string; stream: boolean } = step;
  return answer;
}
void serve(new Endpoint({ create: true, bodyBudget: 1024 }), "POST", [], (async function* () {})());

// Mistakes the types refuse.
// @ts-expect-error documents is required
handler({ caller: () => "a" });
// @ts-expect-error a create answer's kind is one of five
const wrongKind: CreateAnswer = { kind: "made" };
// @ts-expect-error a created answer carries its document
const noDocument: CreateAnswer = { kind: "created" };
// @ts-expect-error Endpoint's create is a capability, not a host function
new Endpoint({ create: { create: async () => ({ kind: "conflict" }) } });
// @ts-expect-error a revision is a number
const badDocument: Document = { id: "d", title: "T", source: "s", revision: "4" };
// @ts-expect-error a revision conflict names the current revision
const noRevision: UpdateAnswer = { kind: "revision-conflict" };
// @ts-expect-error a rename is not answered "locked"
const locked: RenameAnswer = { kind: "locked" };
// @ts-expect-error a planner refuses with one of its seven codes
const busy: InvokeAnswer = { kind: "refused", code: "planner-busy" };
// @ts-expect-error an invoked document has a url
const noUrl: InvokeAnswer = { kind: "invoked", document: { id: "d", title: "T" } };
void [wrongKind, noDocument, badDocument, noRevision, locked, busy, noUrl];
function answerRead(step: Step) {
  if (step.kind === "read") {
    // @ts-expect-error a read is answered with a document, not a list
    step.answer([]);
  }
  // @ts-expect-error only a read step has an id
  void step.id;
}
void answerRead;

// An implementations host deciding with the rules, inside its transaction.
function implementations(state: ImplementationState & { planRevision: number }): ImplementationHost<string> {
  return {
    read: (caller, id) =>
      id === "d" && caller === "octocat"
        ? { kind: "found", document: { id, title: "T", source: "# T\n", revision: 3 }, repository: { name: "o/r", baseBranch: "main", baseCommit: "c" }, ...state }
        : { kind: "unavailable" },
    async start(caller, input) {
      const claim = rules.claim(state, input);
      if (claim.kind !== "start") return claim.kind === "active" ? { kind: "active", run: claim.run } : claim;
      const run = { ...input, id: input.runId, user: caller, session: input.client.session, startedAt: "t", client: { name: input.client.name, version: input.client.version } };
      state.runs.push({ run, events: [] });
      return { kind: "started", run };
    },
    report(caller, input): ReportAnswer {
      const decision = rules.report(state, { caller, runId: input.runId, event: input.event, stored: null });
      if (decision.kind === "refused") return decision;
      if (decision.kind === "append") state.runs[0]?.events.push(decision.event);
      return { kind: decision.kind === "append" ? "accepted" : "replayed", ...state };
    },
  };
}
handler<string>({
  caller: () => "octocat",
  documents: reader(),
  implementations: implementations({ planRevision: 3, versions: [], runs: [] }),
});
const print: string = rules.fingerprint("R", { kind: "start_task", idempotencyKey: "k", taskId: "t" });
// @ts-expect-error a start_task event names its task
rules.fingerprint("R", { kind: "start_task", idempotencyKey: "k" });
// @ts-expect-error a refusal's code is one of the rules'
const badCode: StartImplementationAnswer = { kind: "refused", code: "nope" };
// @ts-expect-error an accepted report carries the state after it
const noState: ReportAnswer = { kind: "accepted" };
// @ts-expect-error a claim needs the document's plan revision
rules.claim({ versions: [], runs: [] }, { planRevision: 3, graphVersion: 1, graphRevision: 1 });
void [print, badCode, noState];

// prepareUpdate: the input update.update is given, the issues, or undefined.
const preparedUpdate = prepareUpdate({ id: "d", revision: 4, plan: "# T\n", idempotencyKey: "k" });
if (preparedUpdate && "input" in preparedUpdate) {
  const preparedInput: UpdateDocumentInput = preparedUpdate.input;
  void preparedInput;
} else if (preparedUpdate) {
  const firstCode: string | undefined = preparedUpdate.issues[0]?.code;
  void firstCode;
}
// @ts-expect-error prepareUpdate takes the arguments object
prepareUpdate("{}");
