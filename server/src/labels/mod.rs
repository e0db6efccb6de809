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
//!
//! The rooms: this file has the label sets a request begins with (method,
//! tool, rejection, store operation, protocol, path, HTTP method); `written`
//! what became of a write ([`Written`]), `scan` the scans of a body's start
//! and of a response ([`sniff`], [`refusal`]). Both are re-exported here.

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

mod scan;
mod written;

pub use scan::{Refusal, is_batch, is_issues_result, refusal, sniff};
pub use written::{
    ArchiveResult, CreateResult, InvokeResult, RenameResult, RestoreResult, UpdateResult,
    UploadResult, Written,
};

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
        ReadImplementation => "read_implementation",
        StartImplementation => "start_implementation",
        StartTask => "start_task",
        BlockTask => "block_task",
        ReportPr => "report_pr",
        CompleteTask => "complete_task",
        ReportVerification => "report_verification",
        RequestRevision => "request_revision",
        InvokePlanner => "invoke_planner",
        UploadImage => "upload_image",
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
            b"read_implementation" => Tool::ReadImplementation,
            b"start_implementation" => Tool::StartImplementation,
            b"start_task" => Tool::StartTask,
            b"block_task" => Tool::BlockTask,
            b"report_pr" => Tool::ReportPr,
            b"complete_task" => Tool::CompleteTask,
            b"report_verification" => Tool::ReportVerification,
            b"request_revision" => Tool::RequestRevision,
            b"invoke_planner" => Tool::InvokePlanner,
            b"upload_image" => Tool::UploadImage,
            _ => Tool::Other,
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
        /// `read_implementation`'s read of a document's runs.
        ReadImplementation => "read_implementation",
        /// `start_implementation`'s claim.
        Claim => "claim",
        /// A lifecycle tool's report.
        Report => "report",
        /// An invoke_planner's turn recorded (not the turn's run).
        Invoke => "invoke",
        /// An upload's transaction.
        StoreImage => "store_image",
        /// An image's read, for `/images/<file>`.
        ReadImage => "read_image",
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
            Outcome::ReadImplementation(_) => StoreOperation::ReadImplementation,
            Outcome::StartImplementation(_) => StoreOperation::Claim,
            Outcome::ReportLifecycle(_) => StoreOperation::Report,
            Outcome::InvokePlanner(_) => StoreOperation::Invoke,
            Outcome::StoreImage(_) => StoreOperation::StoreImage,
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
        p if p.starts_with(crate::wire::IMAGES) => "/images/{file}",
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
#[cfg(test)]
mod tests {
    use super::*;

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
            ("upload_image", Tool::UploadImage),
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
}
