//! The closed label sets a request is described by, for the request log
//! ([`telemetry`](crate::telemetry)) and the metrics
//! ([`metrics`](crate::metrics)) alike: neither of those modules knows the
//! other, both take their labels from here, and [`record`](crate::record)
//! joins them.
//!
//! Every label is a value from a closed set (else `other`), so no client can
//! grow the set of metric series or put its own text into a log line. Adding
//! a label set (say, how a request authenticated) means adding it here, then
//! a field to [`Record`](crate::record::Record) and a line to each consumer.
//!
//! # The JSON-RPC method and tool name, cheaply
//!
//! The endpoint parses the body once; the host does not parse it again.
//! Instead the first [`SNIFF_BYTES`] bytes of the body are kept, and
//! [`sniff`] scans them for the `"method"` key and (for `tools/call`) the
//! `"name"` key, whose string values are matched against the names the
//! endpoint knows ([`RpcMethod`], [`Tool`]); anything else is `other`. A body
//! starting with `[` is a `batch`. The effects are authoritative (a list,
//! read or create effect is `tools/call` of its tool, whatever a scan would
//! find, and then no scan runs), and the host's answer to a create gives its
//! [`CreateResult`]. A scan that finds nothing (the keys come after a large
//! `arguments`, or a name is escaped) labels the request `other`, never
//! wrongly as a known one.

use chopin_mcp::{Era, ProtocolVersion};

/// How much of a body's start is kept for the method scan.
pub const SNIFF_BYTES: usize = 512;

/// A closed label set: the enum, `ALL` (every value, in the order of
/// `index`), each value's label text and its place in `ALL`.
macro_rules! label_set {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident => $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every value, in the order of [`index`](Self::index).
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The label.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Its place in [`ALL`](Self::ALL).
            pub fn index(self) -> usize {
                self as usize
            }
        }
    };
}

label_set! {
    /// A JSON-RPC method the endpoint knows, `batch`, `none` (no body read),
    /// or `other`.
    pub enum RpcMethod {
        None => "none",
        Initialize => "initialize",
        Initialized => "notifications/initialized",
        Ping => "ping",
        ToolsList => "tools/list",
        ToolsCall => "tools/call",
        /// 2026-07-28's `server/discover`.
        ServerDiscover => "server/discover",
        /// 2026-07-28's `subscriptions/listen`.
        SubscriptionsListen => "subscriptions/listen",
        Batch => "batch",
        Other => "other",
    }
}

impl RpcMethod {
    fn named(name: &[u8]) -> RpcMethod {
        match name {
            b"initialize" => RpcMethod::Initialize,
            b"notifications/initialized" => RpcMethod::Initialized,
            b"ping" => RpcMethod::Ping,
            b"tools/list" => RpcMethod::ToolsList,
            b"tools/call" => RpcMethod::ToolsCall,
            b"server/discover" => RpcMethod::ServerDiscover,
            b"subscriptions/listen" => RpcMethod::SubscriptionsListen,
            _ => RpcMethod::Other,
        }
    }
}

label_set! {
    /// A tool the endpoint offers, `none` (not a tool call), or `other`.
    pub enum Tool {
        None => "none",
        ListDocuments => "list_documents",
        ReadDocument => "read_document",
        CreateDocument => "create_document",
        UpdateDocument => "update_document",
        RenameDocument => "rename_document",
        ArchiveDocument => "archive_document",
        RestoreDocument => "restore_document",
        Other => "other",
    }
}

impl Tool {
    fn named(name: &[u8]) -> Tool {
        match name {
            b"list_documents" => Tool::ListDocuments,
            b"read_document" => Tool::ReadDocument,
            b"create_document" => Tool::CreateDocument,
            b"update_document" => Tool::UpdateDocument,
            b"rename_document" => Tool::RenameDocument,
            b"archive_document" => Tool::ArchiveDocument,
            b"restore_document" => Tool::RestoreDocument,
            _ => Tool::Other,
        }
    }
}

label_set! {
    /// What became of a create.
    pub enum CreateResult {
        /// Stored as a new document.
        Created => "created",
        /// The idempotency key was seen with the same draft: the stored
        /// document.
        Replayed => "replayed",
        /// The idempotency key was seen with another draft.
        Conflict => "conflict",
        /// The plan has dialect issues: nothing reached the store.
        Issues => "issues",
        /// The caller may not create in the repository.
        Forbidden => "forbidden",
        /// Stored, but the stored document cannot be shown.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an update.
    pub enum UpdateResult {
        /// Stored as the document's next revision.
        Updated => "updated",
        /// The idempotency key was seen with the same request: the document
        /// as that update left it.
        Replayed => "replayed",
        /// The idempotency key was seen with another request.
        Conflict => "conflict",
        /// The document is at another revision.
        RevisionConflict => "revision_conflict",
        /// The document is archived.
        Archived => "archived",
        /// The plan has dialect issues: nothing reached the store.
        Issues => "issues",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of a rename.
    pub enum RenameResult {
        /// The document has the title now (also when it had it already).
        Renamed => "renamed",
        /// The document is archived.
        Archived => "archived",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an archive.
    pub enum ArchiveResult {
        /// The document is archived (also when it already was).
        Archived => "archived",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of a restore.
    pub enum RestoreResult {
        /// The document is live (also when it already was).
        Restored => "restored",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

/// What became of a write: its tool's own result. Each write tool has its
/// log field (`create=…`, `update=…`, …) and its counter
/// (`creates_total`, `updates_total`, …), labelled with the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Create(CreateResult),
    Update(UpdateResult),
    Rename(RenameResult),
    Archive(ArchiveResult),
    Restore(RestoreResult),
}

impl Written {
    /// The write tools' log fields, in the order of [`Written::family`].
    pub const FIELDS: [&'static str; 5] = ["create", "update", "rename", "archive", "restore"];

    /// Every value, tool by tool: the order of [`Written::slot`].
    pub fn all() -> impl Iterator<Item = Written> {
        let create = CreateResult::ALL.iter().map(|&r| Written::Create(r));
        let update = UpdateResult::ALL.iter().map(|&r| Written::Update(r));
        let rename = RenameResult::ALL.iter().map(|&r| Written::Rename(r));
        let archive = ArchiveResult::ALL.iter().map(|&r| Written::Archive(r));
        let restore = RestoreResult::ALL.iter().map(|&r| Written::Restore(r));
        create
            .chain(update)
            .chain(rename)
            .chain(archive)
            .chain(restore)
    }

    /// Its tool's place in [`Written::FIELDS`].
    pub fn family(self) -> usize {
        match self {
            Written::Create(_) => 0,
            Written::Update(_) => 1,
            Written::Rename(_) => 2,
            Written::Archive(_) => 3,
            Written::Restore(_) => 4,
        }
    }

    /// Its tool's log field: `create`, `update`, `rename`, `archive`,
    /// `restore`.
    pub fn field(self) -> &'static str {
        Written::FIELDS[self.family()]
    }

    /// The result's label.
    pub fn as_str(self) -> &'static str {
        match self {
            Written::Create(result) => result.as_str(),
            Written::Update(result) => result.as_str(),
            Written::Rename(result) => result.as_str(),
            Written::Archive(result) => result.as_str(),
            Written::Restore(result) => result.as_str(),
        }
    }

    /// Its place in [`Written::all`].
    pub fn slot(self) -> usize {
        let (before, index) = match self {
            Written::Create(r) => (0, r.index()),
            Written::Update(r) => (1, r.index()),
            Written::Rename(r) => (2, r.index()),
            Written::Archive(r) => (3, r.index()),
            Written::Restore(r) => (4, r.index()),
        };
        let sizes = [
            CreateResult::ALL.len(),
            UpdateResult::ALL.len(),
            RenameResult::ALL.len(),
            ArchiveResult::ALL.len(),
        ];
        sizes[..before].iter().sum::<usize>() + index
    }

    /// A write tool's answer of dialect issues, which no effect reports
    /// (the host is never asked): for `tool`, if it is a tool that takes a
    /// plan.
    pub fn issues(tool: Tool) -> Option<Written> {
        match tool {
            Tool::CreateDocument => Some(Written::Create(CreateResult::Issues)),
            Tool::UpdateDocument => Some(Written::Update(UpdateResult::Issues)),
            _ => None,
        }
    }
}

label_set! {
    /// Why a request was turned away, as counted in `rejections_total`.
    pub enum Rejection {
        /// 401: no token, or one the server does not know.
        Unauthorized => "unauthorized",
        /// 401 for a bearer token the server refused (AUTH.md §2).
        InvalidToken => "invalid_token",
        /// 403: a token without a scope the request needs.
        InsufficientScope => "insufficient_scope",
        /// 503: the token could not be judged (the authorization server).
        AuthUnavailable => "auth_unavailable",
        /// 403: an origin or host not allowed.
        Forbidden => "forbidden",
        /// 406: an `accept` the endpoint cannot answer.
        NotAcceptable => "not_acceptable",
        /// 413: a body over the budget.
        TooLarge => "too_large",
        /// 415: not `application/json`.
        UnsupportedMediaType => "unsupported_media_type",
        /// 431: a head over the limits.
        HeadersTooLarge => "header_fields_too_large",
        /// 400 with JSON-RPC -32700: the body is not JSON.
        ParseError => "parse_error",
    }
}

label_set! {
    /// A store operation whose latency is measured.
    pub enum StoreOperation {
        List => "list",
        Read => "read",
        Create => "create",
        Update => "update",
        Rename => "rename",
        Archive => "archive",
        Restore => "restore",
        /// The readiness query of `/readyz`.
        Ready => "ready",
    }
}

impl StoreOperation {
    /// The store operation an effect stands for (a read for anything that
    /// is not an effect of the store; no such outcome is timed).
    pub fn of<C>(outcome: &chopin_mcp::Outcome<C>) -> StoreOperation {
        use chopin_mcp::Outcome;
        match outcome {
            Outcome::List(_) => StoreOperation::List,
            Outcome::Create(_) => StoreOperation::Create,
            Outcome::Update(_) => StoreOperation::Update,
            Outcome::Rename(_) => StoreOperation::Rename,
            Outcome::Archive(_) => StoreOperation::Archive,
            Outcome::Restore(_) => StoreOperation::Restore,
            Outcome::Read(_)
            | Outcome::Respond(_)
            | Outcome::Authenticate(_)
            | Outcome::Body(_) => StoreOperation::Read,
        }
    }
}

/// The protocol revision and its era, from the `mcp-protocol-version` header
/// value (OWS-trimmed), as the core names them; `other` for a value the
/// endpoint refuses. A modern client that sends no header is logged under
/// the default revision: the era is only certain once the body is read.
pub fn protocol(header: Option<&[u8]>) -> (&'static str, &'static str) {
    match header {
        // The revision a request naming none is served under.
        None => (ProtocolVersion::DEFAULT.as_str(), Era::Legacy.as_str()),
        Some(value) => match ProtocolVersion::parse(value.trim_ascii()) {
            Some(version) => (version.as_str(), version.era().as_str()),
            None => ("other", "other"),
        },
    }
}

/// The request path as a label: the paths this server serves, else `other`
/// (a client-chosen path is never logged).
pub fn path_label(path: &str) -> &'static str {
    match path {
        "/mcp" => "/mcp",
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        "/metrics" => "/metrics",
        p if p.starts_with(crate::wire::DOCUMENTS) => "/documents/{id}",
        p if p.starts_with("/.well-known/oauth-protected-resource") => {
            "/.well-known/oauth-protected-resource"
        }
        _ => "other",
    }
}

/// The HTTP method as a label.
pub fn http_method_label(method: &str) -> &'static str {
    match method {
        "GET" => "GET",
        "POST" => "POST",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        _ => "other",
    }
}

/// Why a request was refused, if it was.
#[derive(Debug, Clone, Copy)]
pub struct Refusal {
    pub text: &'static str,
    /// Its `rejections_total` reason, for the refusals counted there.
    pub rejection: Option<Rejection>,
}

/// Why a response refuses its request, from its status and (for 400 and
/// 403, whose bodies the endpoint writes from a fixed set) its body.
pub fn refusal(status: u16, body: &[u8]) -> Option<Refusal> {
    use Rejection as R;
    let (text, rejection) = match status {
        0..=399 => return None,
        400 if contains(body, b"-32700") => ("parse_error", Some(R::ParseError)),
        400 if contains(body, b"unsupported protocol version") => {
            ("unsupported_protocol_version", None)
        }
        400 if contains(body, b"-32600") => ("invalid_request", None),
        400 => ("bad_request", None),
        401 => ("unauthorized", Some(R::Unauthorized)),
        403 if contains(body, b"insufficient scope") => {
            ("insufficient_scope", Some(R::InsufficientScope))
        }
        403 if body == b"origin is not allowed" => ("origin_not_allowed", Some(R::Forbidden)),
        403 if body == b"host is not allowed" => ("host_not_allowed", Some(R::Forbidden)),
        403 => ("forbidden", Some(R::Forbidden)),
        404 => ("not_found", None),
        405 => ("method_not_allowed", None),
        406 => ("not_acceptable", Some(R::NotAcceptable)),
        413 => ("too_large", Some(R::TooLarge)),
        415 => ("unsupported_media_type", Some(R::UnsupportedMediaType)),
        431 => ("header_fields_too_large", Some(R::HeadersTooLarge)),
        500 => ("internal_error", None),
        503 if contains(body, b"authorization unavailable") => {
            ("auth_unavailable", Some(R::AuthUnavailable))
        }
        503 => ("unavailable", None),
        _ => ("other", None),
    };
    Some(Refusal { text, rejection })
}

/// Whether a response is a tool's answer of dialect issues:
/// `"structuredContent":{"issues":` in it (only an issues result has that
/// member, unescaped, in either era; an argument refusal has no
/// `structuredContent`, and inside the text copy every quote is escaped).
pub fn is_issues_result(body: &[u8]) -> bool {
    contains(body, b"\"structuredContent\":{\"issues\":")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// The first `needle` (not empty) in `haystack`: candidates found by its
/// first byte, then compared.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while from + needle.len() <= haystack.len() {
        let at = from
            + haystack[from..=haystack.len() - needle.len()]
                .iter()
                .position(|&b| b == first)?;
        if haystack[at + 1..at + needle.len()] == *rest {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Whether a body (its start) is a JSON-RPC batch: `[` its first byte after
/// whitespace.
pub fn is_batch(start: &[u8]) -> bool {
    start.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// The method and tool a body's start names (see the module docs).
pub fn sniff(start: &[u8]) -> (RpcMethod, Tool) {
    let first = start.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        None => return (RpcMethod::None, Tool::None),
        Some(b'[') => return (RpcMethod::Batch, Tool::None),
        Some(_) => {}
    }
    let method = string_value(start, b"\"method\"").map_or(RpcMethod::Other, RpcMethod::named);
    let tool = if method == RpcMethod::ToolsCall {
        string_value(start, b"\"name\"").map_or(Tool::Other, Tool::named)
    } else {
        Tool::None
    };
    (method, tool)
}

/// The raw string value of the first `key` (quotes included) that is a
/// member name: `key`, spaces, `:`, spaces, `"value"` with no escape in it.
fn string_value<'a>(text: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut from = 0;
    while let Some(found) = find(&text[from..], key) {
        let at = from + found;
        from = at + 1;
        // Inside a string a quote is escaped: `\"method\"` is not a key.
        if at > 0 && text[at - 1] == b'\\' {
            continue;
        }
        let mut rest = text[at + key.len()..].trim_ascii_start();
        let Some(after_colon) = rest.strip_prefix(b":") else {
            continue;
        };
        rest = after_colon.trim_ascii_start();
        let Some(value) = rest.strip_prefix(b"\"") else {
            continue;
        };
        let end = value.iter().position(|&b| b == b'"' || b == b'\\')?;
        if value[end] == b'\\' {
            return None;
        }
        return Some(&value[..end]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_finds_known_methods_and_tools_only() {
        let read = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"x"}}}"#;
        assert_eq!(sniff(read), (RpcMethod::ToolsCall, Tool::ReadDocument));
        let spaced = br#"{ "params" : { "name" : "create_document" }, "method" : "tools/call" }"#;
        assert_eq!(sniff(spaced), (RpcMethod::ToolsCall, Tool::CreateDocument));
        let init = br#"{"method":"initialize","params":{"clientInfo":{"name":"read_document"}}}"#;
        assert_eq!(sniff(init), (RpcMethod::Initialize, Tool::None));
        assert_eq!(
            sniff(br#"{"method":"tools/call","params":{"name":"drop_tables"}}"#),
            (RpcMethod::ToolsCall, Tool::Other)
        );
        assert_eq!(
            sniff(br#"{"method":"evil/\"method"}"#),
            (RpcMethod::Other, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"x":"\"method\":\"ping\"","method":"tools/list"}"#),
            (RpcMethod::ToolsList, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#),
            (RpcMethod::ServerDiscover, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"method":"subscriptions/listen"}"#),
            (RpcMethod::SubscriptionsListen, Tool::None)
        );
        assert_eq!(sniff(b" [{}]"), (RpcMethod::Batch, Tool::None));
        assert_eq!(sniff(b""), (RpcMethod::None, Tool::None));
        assert_eq!(
            sniff(b"{\"method\":\"tools/ca"),
            (RpcMethod::Other, Tool::None)
        );
        assert!(is_batch(b" \n[{}]"));
        assert!(!is_batch(b"{\"a\":[]}"));
        assert!(!is_batch(b""));
    }

    #[test]
    fn find_matches_the_naive_search() {
        let haystacks: [&[u8]; 6] = [b"", b"a", b"aab", b"abab", b"xx\"method\"", b"\"\"\"method"];
        let needles: [&[u8]; 5] = [b"a", b"ab", b"aab", b"\"method\"", b"b"];
        for haystack in haystacks {
            for needle in needles {
                let naive = haystack.windows(needle.len()).position(|w| w == needle);
                assert_eq!(find(haystack, needle), naive, "{haystack:?} {needle:?}");
            }
        }
    }

    #[test]
    fn versions_are_classified_into_eras() {
        assert_eq!(protocol(None), ("2025-03-26", "legacy"));
        assert_eq!(protocol(Some(b"2025-06-18")), ("2025-06-18", "legacy"));
        assert_eq!(protocol(Some(b"2026-07-28")), ("2026-07-28", "modern"));
        assert_eq!(protocol(Some(b"1999-01-01")), ("other", "other"));
    }

    #[test]
    fn indexes_are_places_in_all() {
        for (i, m) in RpcMethod::ALL.iter().enumerate() {
            assert_eq!(m.index(), i);
        }
        for (i, t) in Tool::ALL.iter().enumerate() {
            assert_eq!(t.index(), i);
        }
        for (i, c) in CreateResult::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        for (i, r) in Rejection::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
        for (i, o) in StoreOperation::ALL.iter().enumerate() {
            assert_eq!(o.index(), i);
        }
        for (i, w) in Written::all().enumerate() {
            assert_eq!(w.slot(), i, "{w:?}");
        }
    }

    #[test]
    fn every_write_tool_is_named_and_has_its_field() {
        for (name, tool) in [
            ("update_document", Tool::UpdateDocument),
            ("rename_document", Tool::RenameDocument),
            ("archive_document", Tool::ArchiveDocument),
            ("restore_document", Tool::RestoreDocument),
        ] {
            let body = format!(r#"{{"method":"tools/call","params":{{"name":"{name}"}}}}"#);
            assert_eq!(sniff(body.as_bytes()), (RpcMethod::ToolsCall, tool));
            assert_eq!(tool.as_str(), name);
        }
        let fields: Vec<&str> = Written::all().map(Written::field).collect();
        for field in Written::FIELDS {
            assert!(fields.contains(&field), "{field}");
        }
        assert_eq!(
            Written::Update(UpdateResult::RevisionConflict).as_str(),
            "revision_conflict"
        );
        assert_eq!(Written::issues(Tool::RenameDocument), None);
    }

    #[test]
    fn only_an_issues_result_is_one() {
        let issues = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"issues\":[]}"}],"structuredContent":{"issues":[{"code":"c","message":"m","path":"p"}]},"isError":true}}"#;
        assert!(is_issues_result(issues));
        let modern = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"{}"}],"structuredContent":{"issues":[]},"isError":true,"_meta":{}}}"#;
        assert!(is_issues_result(modern));
        let refusal = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"update_document requires a valid revision and plan"}],"isError":true}}"#;
        assert!(!is_issues_result(refusal));
        let conflict = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"code\":\"idempotency-conflict\"}"}],"structuredContent":{"code":"idempotency-conflict"},"isError":true}}"#;
        assert!(!is_issues_result(conflict));
    }
}
