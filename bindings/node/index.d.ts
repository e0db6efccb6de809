// Types of chopin-mcp for Node and Bun (index.cjs, index.mjs). The guide is
// docs/typescript.md at the repository's root.

/**
 * One entry of a repository's document list (answered `id, title,
 * description?, archivedAt?`); also what a rename or restore answers with
 * (never its `archivedAt`).
 */
export type DocumentSummary = {
  id: string;
  title: string;
  /** A generated line about it, when the host keeps one. */
  description?: string | null;
  /** When it was archived (the host's RFC 3339 string), for an archived document a list includes. */
  archivedAt?: string | null;
};

/** A document as `read_document` returns it (answered `id, title, description?, archivedAt?, brief?, source, revision, url?`). */
export type Document = DocumentSummary & {
  /** The brief it was created with, when the host keeps one (answered between `archivedAt` and `source`). */
  brief?: Brief | null;
  /** The canonical plan source. */
  source: string;
  /** The revision number: a whole number from 0. */
  revision: number;
  /** Where people open it, when the host gives one (none is answered without it). */
  url?: string | null;
};

/** The structured brief of a new document. */
export type Brief = {
  goal: string;
  constraints: string[];
  settledDecisions: string[];
  openQuestions: string[];
  repositoryFindings: string[];
};

/**
 * What `create_document` asks the host to store: the caller's validated
 * fields, the **canonical** plan (ids minted), and a fingerprint of what was
 * submitted. Key creation on caller + `idempotencyKey`.
 */
export type CreateDocumentInput = {
  idempotencyKey: string;
  /** `owner/name`, validated. */
  repository: string;
  baseBranch: string;
  baseCommit: string;
  title: string;
  brief: Brief;
  /** The canonical plan: the submitted plan with minted ids. */
  plan: string;
  /** Lowercase hex SHA-256 of the submitted values: equal for a replay of the same draft. */
  fingerprint: string;
};

/** A document the host created (or had created before, for a replay). */
export type CreatedDocument = {
  id: string;
  title: string;
  brief: Brief;
  /** The canonical plan as stored. */
  source: string;
  /** 0 for a new document. */
  revision: number;
  /** Where people open it. */
  url: string;
};

/**
 * The host's answer to a create: `created` (stored now), `replayed` (this
 * caller stored this key with this fingerprint before: that document),
 * `conflict` (this key with another fingerprint), `forbidden` (the caller may
 * not create in the repository; answered as an absent document),
 * `unavailable` (the store cannot create now), `title-taken` (the title is
 * taken, on a host whose titles are unique per repository).
 */
export type CreateAnswer =
  | { kind: "created" | "replayed"; document: CreatedDocument }
  | { kind: "conflict" }
  /** The title is taken in the repository, on a host whose titles are unique (answered `title-taken`). */
  | { kind: "title-taken" }
  | { kind: "forbidden" }
  | { kind: "unavailable" };

/**
 * What `update_document` asks the host to store (keys in this order): the
 * document's locator **as sent** (an id, or its canonical URL: the host
 * resolves it), the revision the caller read, the **canonical** revised
 * plan (ids minted, checked clean), the caller's key and a fingerprint of
 * what was submitted. Key updates on caller + `idempotencyKey`, apart from
 * create keys.
 */
export type UpdateDocumentInput = {
  id: string;
  /** Store the plan only if the document is still at this revision. */
  revision: number;
  plan: string;
  idempotencyKey: string;
  /** Lowercase hex SHA-256 of the submitted key, locator, revision and plan: equal for a retry of the same update. */
  fingerprint: string;
};

/** A document as an update left it (or, for a replay, as the update replayed left it). */
export type UpdatedDocument = {
  id: string;
  title: string;
  /** Its brief, when the host keeps one. */
  brief?: Brief | null;
  /** The canonical plan as stored. */
  source: string;
  /** The revision the update made. */
  revision: number;
  url: string;
};

/**
 * The host's answer to an update. Every answer but `unavailable` tells the
 * caller the document exists: give the others only to a caller who may see
 * it. `updated` (stored as the next revision), `replayed` (this caller
 * stored this key with this fingerprint before), `conflict` (this key with
 * another fingerprint), `revision-conflict` (the document is at `revision`
 * now), `locked` (held by other work), `protected` (a protected
 * projection), `archived`, `forbidden` (the caller may see it but not
 * change it), `unavailable` (no such document for this caller, or the store
 * cannot update now).
 */
export type UpdateAnswer =
  | { kind: "updated" | "replayed"; document: UpdatedDocument }
  | { kind: "revision-conflict"; revision: number }
  | { kind: "conflict" | "locked" | "protected" | "archived" | "forbidden" | "unavailable" };

/** What `rename_document` asks: the document's id as sent (an id only, at most 128 characters) and the new title, trimmed. */
export type RenameDocumentInput = { id: string; title: string };

/**
 * The host's answer to a rename: `renamed`, or `unchanged` (it already had
 * the title; a success alike), with the document's id, title and
 * description, if any; `archived`; `conflict` (the title is taken, on a host
 * whose titles are unique); `forbidden`; `unavailable`.
 */
export type RenameAnswer =
  | { kind: "renamed" | "unchanged"; document: DocumentSummary }
  | { kind: "archived" | "conflict" | "forbidden" | "unavailable" };

/** A document the host archived, now or before (then with the time it was first archived). */
export type ArchivedDocument = {
  id: string;
  title: string;
  /** A generated line about it, when the host keeps one. */
  description?: string | null;
  /** The host's time, passed through untouched (the reference server: `2026-08-23T12:34:56.000Z`). */
  archivedAt: string;
};

/** The host's answer to an archive: `archived` (now), `unchanged` (before: a success alike), `forbidden`, `unavailable`. */
export type ArchiveAnswer =
  | { kind: "archived" | "unchanged"; document: ArchivedDocument }
  | { kind: "forbidden" | "unavailable" };

/** The host's answer to a restore: `restored`, `unchanged` (was not archived: a success alike), `forbidden`, `unavailable`. */
export type RestoreAnswer =
  | { kind: "restored" | "unchanged"; document: DocumentSummary }
  | { kind: "forbidden" | "unavailable" };

/**
 * What `invoke_planner` asks: the locator, the instruction (not blank, at
 * most 64 KiB of UTF-8, never trimmed) and, when the caller named one, an
 * absolute `checkout` path — each as sent.
 */
export type InvokePlannerInput = { id: string; instruction: string; checkout?: string };

/** The document a planner was asked about, as `invoke_planner` answers it. */
export interface PlannerDocument {
  id: string;
  title: string;
  /** A generated one-line description, when the host has one. */
  description?: string;
  /** Where the document is read (the host's URL). */
  url: string;
}

/** Why a host did not post the instruction (SURFACE.md §9). */
export type PlannerRefusalCode =
  | "document-unavailable"
  | "repository-forbidden"
  | "document-archived"
  | "planner-owner-unavailable"
  | "checkout-unverified"
  | "planner-unavailable"
  | "planner-queue-full";

/**
 * The host's answer to `invoke_planner`: `invoked` (posted; the turn need
 * not have begun) with the document, or `refused` with one of the seven
 * codes (anything else is a `TypeError`).
 */
export type InvokeAnswer =
  | { kind: "invoked"; document: PlannerDocument }
  | { kind: "refused"; code: PlannerRefusalCode };

/** The host input of an upload (upstream's `{ id, mimeType, bytes }`): `id` a locator as sent, the bytes checked (type, signature, at most 1 MiB). */
export type UploadImageInput = {
  id: string;
  mimeType: "image/png" | "image/jpeg" | "image/webp" | "image/gif";
  bytes: Uint8Array;
};

/** What the core worked out of an upload's bytes: their SHA-256 (64 lowercase hex digits) and where they are served, `/images/<sha256>.<png|jpg|webp|gif>`. */
export type UploadImagePaths = { sha256: string; path: string };

/**
 * The host's answer to an upload: `uploaded` (kept, now or already: the
 * result names the core's path; a `path` given must equal it, else a
 * `TypeError`), `archived`, `forbidden`, `unavailable`, or `too-large` (past
 * the host's quota).
 */
export type UploadAnswer =
  | { kind: "uploaded"; path?: string }
  | { kind: "archived" | "forbidden" | "unavailable" | "too-large" };

/** An image a caller may load: the type it was stored as, and its bytes. */
export type StoredImage = { mimeType: string; bytes: Uint8Array | ArrayBuffer };

/** A value that may come synchronously or as a promise. */
export type Awaitable<T> = T | Promise<T>;

/**
 * The host's reads. `caller` is whatever the caller function returned,
 * handed back untouched (`===`).
 */
export interface DocumentReader<Caller = any> {
  /**
   * The documents of `repository` (`owner/name`, validated) the caller may
   * see, in the order to present them; `"forbidden"` when the caller has no
   * access to the repository (answered `repository-forbidden`; a granted
   * repository without documents is `[]`). With `includeArchived`, archived
   * documents too, each with its `archivedAt` (the flag is `false` when the
   * client sent none).
   */
  list(caller: Caller, repository: string, includeArchived: boolean): Awaitable<DocumentSummary[] | "forbidden">;
  /**
   * The document `id` (as sent, at most 128 characters: an id, or a locator
   * such as its URL), or `undefined` when it is missing or the caller may not
   * see it (the two must look alike). Archived documents are read, with
   * their `archivedAt`.
   */
  read(caller: Caller, id: string): Awaitable<Document | undefined | null>;
}

/**
 * What the client said of itself (SURFACE.md §10): from the request's one
 * well-formed `mcp-session-id` (issued by `initialize`, stateless) or, in
 * 2026-07-28, its `_meta` client info. A field not given is `"unknown"`.
 * Attribution only: it authorizes nothing.
 */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** The host's creation, in one transaction (see `CreateAnswer`); `client` is for attribution (a host may ignore it). */
export interface DocumentCreator<Caller = any> {
  create(caller: Caller, input: CreateDocumentInput, client: ClientInfo): Awaitable<CreateAnswer>;
}

/** The host's update, in one transaction, idempotent (see `UpdateAnswer`); `client` is for attribution (a host may ignore it). */
export interface DocumentUpdater<Caller = any> {
  update(caller: Caller, input: UpdateDocumentInput, client: ClientInfo): Awaitable<UpdateAnswer>;
}

/** The host's rename (see `RenameAnswer`). */
export interface DocumentRenamer<Caller = any> {
  rename(caller: Caller, input: RenameDocumentInput): Awaitable<RenameAnswer>;
}

/** The host's archive of the document `id` (an id or canonical URL, as sent; see `ArchiveAnswer`). */
export interface DocumentArchiver<Caller = any> {
  archive(caller: Caller, id: string): Awaitable<ArchiveAnswer>;
}

/** The host's restore of the archived document `id` (an id or canonical URL, as sent; see `RestoreAnswer`). */
export interface DocumentRestorer<Caller = any> {
  restore(caller: Caller, id: string): Awaitable<RestoreAnswer>;
}

/**
 * The host's planner: post the instruction, attributed to the caller, and
 * answer without waiting for the turn (see `InvokeAnswer`). `client` is the
 * client that called (Chopin's own hosts ignore it).
 */
export interface PlannerInvoker<Caller = any> {
  invoke(caller: Caller, input: InvokePlannerInput, client: ClientInfo): Awaitable<InvokeAnswer>;
}

/** The host's keeping of an image for the document `input.id` names (see `UploadAnswer`); keyed by the bytes' digest, so the same bytes again are the same image. */
export interface ImageUploader<Caller = any> {
  upload(caller: Caller, input: UploadImageInput, paths: UploadImagePaths): Awaitable<UploadAnswer>;
}

/**
 * The host's images for `/images/<file>`: the image with digest `sha256`
 * when the caller may read some document it was uploaded to (archived ones
 * too); `undefined` otherwise (strangers and unknown digests alike: 404);
 * `"unavailable"` when the store cannot answer now (503). `mimeType` is the
 * type the URL names; an image stored as another is not found.
 */
export interface ImageReader<Caller = any> {
  read(caller: Caller, sha256: string, mimeType: string): Awaitable<StoredImage | "unavailable" | undefined | null>;
}
// The implementation runs' types and `rules` (IMPLEMENTATION.md) are in
// lib/implementations.d.ts, re-exported here.
export * from "./lib/implementations.js";
import type {
  ImplementationHost,
  ReadImplementationAnswer,
  ReportAnswer,
  ReportInput,
  StartImplementationAnswer,
  StartImplementationInput,
} from "./lib/implementations.js";

declare const scopedBrand: unique symbol;

/** A caller with the scopes its token grants (made by `scoped`). */
export interface Scoped<Caller> {
  readonly caller: Caller;
  readonly scopes: readonly string[];
  readonly [scopedBrand]: true;
}

/**
 * A caller with the scopes its token grants: a space-separated `scope`
 * value or a list of names. A request needing a scope not granted gets 403
 * `insufficient_scope` (the read scope for every request, the create scope
 * for `create_document`, the write scope for the update, rename, archive and
 * restore tools). A plain caller has every scope.
 */
export function scoped<Caller>(caller: Caller, scopes: string | readonly string[]): Scoped<Caller>;

/** What the caller function returns when it cannot judge the credentials now: 503, `retry-after: 5`. */
export declare const UNAVAILABLE: unique symbol;

/**
 * What the caller function may return: the caller (any value but
 * `undefined` and `null`), a caller with its scopes, `undefined` or `null`
 * (401), or `UNAVAILABLE` (503).
 */
export type CallerAnswer<Caller> = Caller | Scoped<Caller> | typeof UNAVAILABLE | undefined | null;

/** Endpoint settings (the crate's `Config`); a bad one is a `TypeError` when the handler or endpoint is made. */
export interface EndpointSettings {
  /** `serverInfo.name` (default `chopin`). */
  serverName?: string;
  /** `serverInfo.version` (default the crate's version). */
  serverVersion?: string;
  /** `serverInfo.title` (none by default). */
  serverTitle?: string;
  /**
   * Guidance for the model: `initialize`'s and `server/discover`'s
   * `instructions`. By default the text SURFACE.md §10 generates from the
   * offered tools' descriptions.
   */
  instructions?: string;
  /** Browser origins allowed, matched byte for byte (`https://app.example`); every other `Origin` gets 403. */
  allowedOrigins?: string[];
  /** `Host` names allowed (DNS-rebinding protection); once one is given, any other `Host` gets 403. */
  allowedHosts?: string[];
  /** Allow the loopback hosts `localhost`, `127.0.0.1`, `[::1]` and loopback origins (`http://localhost:5173`). */
  loopbackHosts?: boolean;
  /** The protocol versions served (default all: `2024-11-05` … `2026-07-28`). */
  protocolVersions?: string[];
  /** The most body bytes a request may carry (default 65536, or 786432 with create or update). */
  bodyBudget?: number;
  /** How long modern clients may cache `server/discover` and `tools/list`, in ms (default one hour). */
  cacheTtlMs?: number;
  /** Make the endpoint an OAuth 2.1 resource server: its canonical URI and its authorization server's issuer. */
  oauth?: { resource: string; issuer: string };
  /** Rename the read, create and write scopes (default `chopin:read`, `chopin:create`, `chopin:write`). */
  scopes?: { read: string; create: string; write?: string };
  /** The Protected Resource Metadata URL 401 challenges name, when hosted elsewhere. */
  resourceMetadata?: string;
}

/** `handler`'s options: the seed's `{ caller, documents, create }` and the endpoint settings. */
export interface HandlerOptions<Caller> extends EndpointSettings {
  /** Maps a request's credentials to a caller; `undefined` or `null` answers 401. */
  caller(request: Request): Awaitable<CallerAnswer<Caller>>;
  documents: DocumentReader<Caller>;
  /** Offers `create_document` (and raises the body budget to 786432 bytes). */
  create?: DocumentCreator<Caller>;
  /** Offers `update_document` (and raises the body budget to 786432 bytes). */
  update?: DocumentUpdater<Caller>;
  /** Offers `rename_document`. */
  rename?: DocumentRenamer<Caller>;
  /** Offers `archive_document`; only together with `restore` (else a `TypeError`: an archive must be undoable). */
  archive?: DocumentArchiver<Caller>;
  /** Offers `restore_document`. */
  restore?: DocumentRestorer<Caller>;
  /** Offers `invoke_planner` (needs the write scope; raises the body budget to 786432 bytes). */
  invoke?: PlannerInvoker<Caller>;
  /** Offers `upload_image` (and raises the body budget to 1463640 bytes). */
  upload?: ImageUploader<Caller>;
  /** Serves `/images/<file>`: the handler answers those requests with the images `read` finds. */
  images?: ImageReader<Caller>;
  /** Offers `read_implementation`, and with `start` and `report` the eight implementation tools. */
  implementations?: ImplementationHost<Caller>;
  /** How often an open GET event stream gets a keep-alive comment, in ms (default 15000). */
  keepAliveMs?: number;
}

/**
 * An MCP endpoint over Web `Request` and `Response` (`Bun.serve({ fetch })`,
 * Deno, Hono, …). A host function that throws or rejects makes the returned
 * promise reject with that error; no response is made for that request.
 */
export function handler<Caller>(options: HandlerOptions<Caller>): (request: Request) => Promise<Response>;

/** One problem found in a plan (Chopin's dialect issue), as `update_document` and `create_document` answer it. */
export type PlanIssue = {
  /** The issue code, e.g. `unknown-component`. */
  code: string;
  /** A structural English sentence that never echoes authored prose. */
  message: string;
  /** Where in the tree: `root > paragraph[0] > link[0]`. */
  path: string;
  /** UTF-8 byte offset into the submitted plan. */
  offset?: number;
  /** 1-based line. */
  line?: number;
  /** 1-based column in Unicode scalar values. */
  column?: number;
};

/**
 * `update_document`'s arguments prepared as a handler prepares its update:
 * `{input}`, exactly what `update.update` would be given (the canonical
 * plan with ids minted from the clock and randomness, the fingerprint of
 * the submitted values); `{issues}` for a plan that is not clean; or
 * `undefined` where the handler answers "update_document requires a valid
 * revision and plan". For hosts that store an update outside the handler.
 */
export function prepareUpdate(
  value: Record<string, unknown>,
): { input: UpdateDocumentInput } | { issues: PlanIssue[] } | undefined;

/** One tool as `tools/list` gives it. */
export type Tool = {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, any>; required: string[]; additionalProperties: boolean };
  outputSchema: { type: "object"; [key: string]: any };
  annotations: Record<string, boolean>;
};

/** What a read-only handler's `tools/list` gives. */
export declare const TOOLS: readonly Tool[];

/** The tools a handler (or `Endpoint`) with these options offers. */
export function tools(options?: Partial<HandlerOptions<any>> | EndpointOptions): Tool[];

/** The keep-alive comment (`: keep-alive` and a blank line) an open event stream sends. */
export declare const KEEP_ALIVE: string;

/** `Endpoint`'s options: the settings and the capabilities offered. */
export interface EndpointOptions extends EndpointSettings {
  /** Offer `create_document`: "create" steps come. */
  create?: boolean;
  /** Offer `update_document`: "update" steps come. */
  update?: boolean;
  /** Offer `rename_document`: "rename" steps come. */
  rename?: boolean;
  /** Offer `archive_document` (only with `restore`): "archive" steps come. */
  archive?: boolean;
  /** Offer `restore_document`: "restore" steps come. */
  restore?: boolean;
  /** Offer `invoke_planner`: "invoke" steps come. */
  invoke?: boolean;
  /** Offer `upload_image`: "upload" steps come. */
  upload?: boolean;
  /** `true`: the eight implementation tools ("read_implementation", "start_implementation" and "report" steps come); `"read"`: `read_implementation` alone. */
  implementations?: boolean | "read";
}

/** Request headers: Node's `rawHeaders`, a Web `Headers`, or names to values. */
export type RequestHeaders =
  | readonly string[]
  | Headers
  | Record<string, string | readonly string[] | undefined>;

/** A finished response: status, headers, body. */
export interface EndpointResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The effect loop for hosts without Web requests (Node's `http`, other
 * frameworks): `begin` a request's exchange, answer each step it is at,
 * send the response.
 */
export class Endpoint {
  constructor(options?: EndpointOptions);
  /** The most body bytes a request may carry. */
  readonly bodyBudget: number;
  /** The tools this endpoint offers. */
  tools(): Tool[];
  /** Starts a request's exchange. */
  begin<Caller = any>(method: string, headers: RequestHeaders): Step<Caller>;
  /** Protected Resource Metadata when `target` is its path (and `oauth` is set), else `undefined`: ask before routing. */
  metadata(method: string, target: string, headers: RequestHeaders): EndpointResponse | undefined;
  /** Starts the exchange of a request to `/images/<file>`: "authenticate", "image", then "respond" (a 200's `body` is the image's bytes). */
  image<Caller = any>(method: string, file: string, headers: RequestHeaders): ImageStep<Caller>;
}

/** Members every step of an exchange has. */
interface StepBase {
  /** Gives up on the exchange (the host failed it): its state is dropped at once (an exchange dropped without this is released when collected). */
  abandon(): void;
}

/** The exchange is over: send this response. */
export interface Respond extends StepBase {
  readonly kind: "respond";
  readonly status: number;
  /** Names in lower case. The host adds framing (`content-length`, `date`, …). */
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 text; empty for 202, 204 and an event stream. */
  readonly body: string;
  /** An accepted GET: keep the response open, writing `KEEP_ALIVE` every 15 s or so until the client leaves. */
  readonly stream: boolean;
}

/** Map the request's credentials to a caller. */
export interface Authenticate<Caller> extends StepBase {
  readonly kind: "authenticate";
  answer(caller: CallerAnswer<Caller>): Step<Caller>;
}

/** Push the request body. */
export interface Body<Caller> extends StepBase {
  readonly kind: "body";
  readonly caller: Caller;
  /** Takes in a chunk: `true` to go on; `false` when it crossed the budget (now "respond", 413: stop reading). */
  push(chunk: Uint8Array): boolean;
  /** The body is complete (with a last chunk, if given). */
  finish(chunk?: Uint8Array): Step<Caller>;
  /** Reads and finishes the body from a Node readable, a Web `ReadableStream` or an async iterable of chunks, leaving the rest unread past the budget. */
  readFrom(source: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>): Promise<Step<Caller>>;
}

/** List the documents of `repository` the caller may see. */
export interface List<Caller> extends StepBase {
  readonly kind: "list";
  readonly caller: Caller;
  readonly repository: string;
  /** Whether archived documents are asked for too (`includeArchived`; `false` when absent). */
  readonly includeArchived: boolean;
  /** The summaries, or `"forbidden"` when the caller has no access to the repository. */
  answer(documents: DocumentSummary[] | "forbidden"): Step<Caller>;
}

/** Read document `id`, if the caller may see it. */
export interface Read<Caller> extends StepBase {
  readonly kind: "read";
  readonly caller: Caller;
  readonly id: string;
  answer(document: Document | undefined | null): Step<Caller>;
}

/** Create a document (only with `create: true`). */
export interface Create<Caller> extends StepBase {
  readonly kind: "create";
  readonly caller: Caller;
  readonly input: CreateDocumentInput;
  readonly client: ClientInfo;
  answer(answer: CreateAnswer): Step<Caller>;
}

/** Update a document (only with `update: true`). */
export interface Update<Caller> extends StepBase {
  readonly kind: "update";
  readonly caller: Caller;
  readonly input: UpdateDocumentInput;
  readonly client: ClientInfo;
  answer(answer: UpdateAnswer): Step<Caller>;
}

/** Rename a document (only with `rename: true`). */
export interface Rename<Caller> extends StepBase {
  readonly kind: "rename";
  readonly caller: Caller;
  readonly input: RenameDocumentInput;
  answer(answer: RenameAnswer): Step<Caller>;
}

/** Archive document `id` (an id or canonical URL, as sent; only with `archive: true`). */
export interface Archive<Caller> extends StepBase {
  readonly kind: "archive";
  readonly caller: Caller;
  readonly id: string;
  answer(answer: ArchiveAnswer): Step<Caller>;
}

/** Restore document `id` (an id or canonical URL, as sent; only with `restore: true`). */
export interface Restore<Caller> extends StepBase {
  readonly kind: "restore";
  readonly caller: Caller;
  readonly id: string;
  answer(answer: RestoreAnswer): Step<Caller>;
}

/** Post an instruction to a document's planner (only with `invoke: true`). */
export interface Invoke<Caller> extends StepBase {
  readonly kind: "invoke";
  readonly caller: Caller;
  readonly input: InvokePlannerInput;
  /** The client that called. */
  readonly client: ClientInfo;
  answer(answer: InvokeAnswer): Step<Caller>;
}

/** Keep an image for a document (only with `upload: true`). */
export interface Upload<Caller> extends StepBase {
  readonly kind: "upload";
  readonly caller: Caller;
  readonly input: UploadImageInput;
  readonly sha256: string;
  readonly path: string;
  answer(answer: UploadAnswer): Step<Caller>;
}

/** Find the image `sha256` of type `mimeType` for the caller (an image URL's exchange). */
export interface ImageRead<Caller> extends StepBase {
  readonly kind: "image";
  readonly caller: Caller;
  readonly sha256: string;
  readonly mimeType: string;
  answer(image: StoredImage | "unavailable" | undefined | null): ImageStep<Caller>;
}

/** An image URL's response: a 200's body is the image's bytes. */
export interface ImageRespond extends StepBase {
  readonly kind: "respond";
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | string;
  readonly stream: false;
}

/** Where an image URL's exchange stands. */
export type ImageStep<Caller = any> =
  | ImageRespond
  | (StepBase & { readonly kind: "authenticate"; answer(caller: CallerAnswer<Caller>): ImageStep<Caller> })
  | ImageRead<Caller>;

/** Read document `id`'s implementation (only with `implementations`). */
export interface ReadImplementationStep<Caller> extends StepBase {
  readonly kind: "read_implementation";
  readonly caller: Caller;
  readonly id: string;
  answer(answer: ReadImplementationAnswer): Step<Caller>;
}

/** Claim a document's graph (only with `implementations: true`). */
export interface StartImplementationStep<Caller> extends StepBase {
  readonly kind: "start_implementation";
  readonly caller: Caller;
  readonly input: StartImplementationInput;
  answer(answer: StartImplementationAnswer): Step<Caller>;
}

/** Record a lifecycle event (only with `implementations: true`). */
export interface ReportStep<Caller> extends StepBase {
  readonly kind: "report";
  readonly caller: Caller;
  readonly input: ReportInput;
  answer(answer: ReportAnswer): Step<Caller>;
}

/** Where an exchange stands; `kind` says which. */
export type Step<Caller = any> =
  | Respond
  | Authenticate<Caller>
  | Body<Caller>
  | List<Caller>
  | Read<Caller>
  | Create<Caller>
  | Update<Caller>
  | Rename<Caller>
  | Archive<Caller>
  | Restore<Caller>
  | Invoke<Caller>
  | Upload<Caller>
  | ReadImplementationStep<Caller>
  | StartImplementationStep<Caller>
  | ReportStep<Caller>;
