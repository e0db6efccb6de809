//! What is read off a request's and a response's bytes, by scanning them
//! rather than parsing: the method and tool a body's start names
//! ([`sniff`], see [`labels`](super)), whether it is a batch, and why a
//! response refused its request ([`refusal`]).

use super::{Rejection, RpcMethod, Tool};

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
