//! SPEC.md §5: the JSON-RPC reject table, ids echoed byte for byte, error
//! objects exactly `{code, message}`, notifications, and parse errors.

mod common;

use common::{Reply, Request, Step, call, endpoint, seed_document};
use serde_json::{Value, json};

const INVALID_REQUEST: (i64, &str) = (-32600, "invalid request");
const INVALID_TOOL_ARGUMENTS: (i64, &str) = (-32602, "invalid tool arguments");

/// Sends a raw body through both forms; returns the reply and transcript.
fn raw(body: &str) -> (Reply, Vec<Step>) {
    Request::post_raw(body).exchange(&endpoint())
}

/// The whole error reply the endpoint must write for `id` (raw JSON text).
fn error_bytes(id: &str, (code, message): (i64, &str)) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

/// Asserts the reply to `body` is the error `error` with the raw id `id`, as
/// a 200 `application/json` reply, and that no store effect was started.
fn assert_error(body: &str, id: &str, error: (i64, &str)) {
    let (reply, transcript) = raw(body);
    assert_eq!(reply.status, 200, "{body}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.raw_member("id"), id, "{body}");
    let value = reply.json();
    assert_eq!(
        value,
        json!({"jsonrpc": "2.0", "id": value["id"], "error": {"code": error.0, "message": error.1}}),
        "{body}"
    );
    assert_eq!(
        transcript,
        [Step::Authenticate, Step::Respond(200)],
        "{body}"
    );
}

#[test]
fn an_error_reply_is_exactly_jsonrpc_id_and_a_code_message_object() {
    let (reply, _) = raw(r#"{"jsonrpc":"1.0","id":4,"method":"tools/list"}"#);
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request"}}"#
    );
    let (reply, _) = raw(r#"{"jsonrpc":"2.0","id":"q","method":"resources/list"}"#);
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"method not found"}}"#
    );
}

#[test]
fn ids_are_echoed_exactly_as_written() {
    for id in [
        "1",
        "1.0",
        "\"a\"",
        "1e2",
        "1E+2",
        "-0",
        "-1.50",
        "0.1e-3",
        "12345678901234567890123456789",
        "\"\\u0041\"",
        "\"a\\/b\"",
        "\"\"",
        "null",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let (reply, _) = raw(&body);
        assert_eq!(
            reply.text(),
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
            "{body}"
        );
        // And in an error reply.
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"nope"}}"#);
        assert_eq!(
            raw(&body).0.text(),
            error_bytes(id, (-32601, "method not found"))
        );
    }
}

#[test]
fn ids_are_echoed_exactly_when_a_tool_reply_comes_back_from_the_host() {
    let document = seed_document();
    for id in ["1.0", "1e2", "-0", "\"a\""] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{}"}}}}}}"#,
            document.id
        );
        let (reply, transcript) = raw(&body);
        assert_eq!(reply.raw_member("id"), id);
        assert_eq!(
            transcript,
            [
                Step::Authenticate,
                Step::Read(document.id.clone()),
                Step::Respond(200)
            ]
        );
    }
}

#[test]
fn a_body_that_is_not_an_object_is_an_invalid_request_with_id_null() {
    for body in ["5", "\"x\"", "null", "true", "false", "-1.5", " 7 "] {
        assert_eq!(
            raw(body).0.text(),
            error_bytes("null", INVALID_REQUEST),
            "{body}"
        );
        assert_error(body, "null", INVALID_REQUEST);
    }
}

#[test]
fn a_wrong_or_missing_jsonrpc_member_is_an_invalid_request_with_the_id_echoed() {
    for body in [
        r#"{"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0 ","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":null,"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":["2.0"],"id":1,"method":"ping"}"#,
    ] {
        assert_error(body, "1", INVALID_REQUEST);
    }
}

#[test]
fn a_method_that_is_not_a_string_is_an_invalid_request() {
    for body in [
        r#"{"jsonrpc":"2.0","id":"m","method":5}"#,
        r#"{"jsonrpc":"2.0","id":"m","method":null}"#,
        r#"{"jsonrpc":"2.0","id":"m","method":["ping"]}"#,
        r#"{"jsonrpc":"2.0","id":"m","method":{"name":"ping"}}"#,
        r#"{"jsonrpc":"2.0","id":"m"}"#,
    ] {
        assert_error(body, "\"m\"", INVALID_REQUEST);
    }
}

#[test]
fn an_id_that_is_not_a_string_number_or_null_is_an_invalid_request_with_id_null() {
    for id in [r#"{"invalid":true}"#, "{}", "[1]", "[]", "true", "false"] {
        for method in ["ping", "tools/list", "initialize", "nope"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            assert_error(&body, "null", INVALID_REQUEST);
        }
        // Also when something else is wrong too.
        let body = format!(r#"{{"jsonrpc":"1.0","id":{id},"method":7}}"#);
        assert_error(&body, "null", INVALID_REQUEST);
    }
}

#[test]
fn initialize_and_tools_list_with_params_that_are_not_an_object_are_invalid_requests() {
    for method in ["initialize", "tools/list"] {
        for params in ["\"invalid\"", "1", "null", "[]", "[{}]", "true"] {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":"p","method":"{method}","params":{params}}}"#);
            assert_error(&body, "\"p\"", INVALID_REQUEST);
        }
    }
}

#[test]
fn initialize_and_tools_list_with_object_params_are_answered() {
    for method in ["initialize", "tools/list"] {
        for params in ["{}", r#"{"cursor":"x"}"#] {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
            let reply = raw(&body).0.json();
            assert!(reply.get("error").is_none(), "{body}: {reply}");
            assert!(reply["result"].is_object(), "{body}");
        }
    }
}

#[test]
fn malformed_tools_call_params_are_invalid_tool_arguments() {
    let read =
        |params: &str| format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call"{params}}}"#);
    for params in [
        "",
        r#","params":null"#,
        r#","params":[]"#,
        r#","params":["read_document"]"#,
        r#","params":"read_document""#,
        r#","params":1"#,
        r#","params":{}"#,
        r#","params":{"arguments":{"id":"x"}}"#,
        r#","params":{"name":5,"arguments":{"id":"x"}}"#,
        r#","params":{"name":null,"arguments":{"id":"x"}}"#,
        r#","params":{"name":["read_document"],"arguments":{"id":"x"}}"#,
        r#","params":{"name":"read_document","arguments":[]}"#,
        r#","params":{"name":"read_document","arguments":["x"]}"#,
        r#","params":{"name":"read_document","arguments":null}"#,
        r#","params":{"name":"read_document","arguments":"{\"id\":\"x\"}"}"#,
        r#","params":{"name":"list_documents","arguments":1}"#,
    ] {
        assert_error(&read(params), "3", INVALID_TOOL_ARGUMENTS);
    }
}

#[test]
fn absent_tool_arguments_count_as_an_empty_object() {
    // `{}` reaches the tool's own check.
    let (reply, transcript) = Request::post(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_document"}
    }))
    .exchange(&endpoint());
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32602, "message": "read_document requires an id"})
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    let (reply, _) = Request::post(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_documents"}
    }))
    .exchange(&endpoint());
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32602, "message": "list_documents requires a repository"})
    );
}

#[test]
fn tools_call_params_may_carry_other_members() {
    let document = seed_document();
    let (reply, transcript) = Request::post(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "read_document", "arguments": {"id": document.id}, "_meta": {"progressToken": 1}},
    }))
    .exchange(&endpoint());
    assert!(reply.json().get("error").is_none(), "{}", reply.text());
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read(document.id),
            Step::Respond(200)
        ]
    );
}

#[test]
fn escaped_method_and_tool_names_are_judged_by_what_they_decode_to() {
    let (reply, transcript) = raw(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"read\u005fdocument","arguments":{"id":"x"}}}"#,
    );
    assert_eq!(
        reply.json()["result"],
        json!({"content": [], "isError": true})
    );
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read("x".into()),
            Step::Respond(200)
        ]
    );
    let (reply, _) = raw(r#"{"jsonrpc":"2\u002e0","id":1,"method":"\u0070ing"}"#);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
}

#[test]
fn a_method_or_tool_name_with_a_lone_surrogate_is_still_a_string() {
    // `"\ud800"` is a JSON string (RFC 8259; JavaScript's JSON.parse reads it),
    // so it is an unknown method / tool, not a malformed one.
    assert_error(
        r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
        "1",
        (-32601, "method not found"),
    );
    assert_error(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800"}}"#,
        "1",
        (-32601, "tool not found"),
    );
}

#[test]
fn an_unknown_tool_is_tool_not_found() {
    for name in [
        "write_document",
        "create_document",
        "",
        "READ_DOCUMENT",
        "read_document ",
    ] {
        for arguments in [json!({}), json!({"id": "x"})] {
            let body = call(json!(8), name, arguments);
            assert_error(&body.to_string(), "8", (-32601, "tool not found"));
        }
        let no_arguments =
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": name}});
        assert_error(&no_arguments.to_string(), "8", (-32601, "tool not found"));
    }
}

#[test]
fn an_unknown_method_is_method_not_found() {
    for method in [
        "resources/list",
        "prompts/list",
        "Ping",
        "tools/List",
        "",
        "server/discover",
        "notifications/initialized",
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method}).to_string();
        assert_error(&body, "9", (-32601, "method not found"));
    }
}

#[test]
fn ping_answers_an_empty_object() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#,
        r#"{"method":"ping","id":1,"jsonrpc":"2.0"}"#,
    ] {
        let (reply, transcript) = raw(body);
        assert_eq!(
            reply.text(),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "{body}"
        );
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    }
}

#[test]
fn notifications_get_202_with_an_empty_body_and_start_nothing() {
    let document = seed_document();
    for body in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "ping"}),
        json!({"jsonrpc": "2.0", "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "method": "no/such/method"}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_document", "arguments": {"id": document.id}}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "no_such_tool"}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_document", "arguments": {"id": ""}}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": 7}),
    ] {
        let (reply, transcript) = Request::post(&body).exchange(&endpoint());
        assert_eq!(reply.status, 202, "{body}");
        assert!(reply.body.is_empty(), "{body}");
        assert_eq!(reply.header("content-type"), None, "{body}");
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Respond(202)],
            "{body}"
        );
    }
}

#[test]
fn an_invalid_request_without_an_id_still_gets_an_error_with_id_null() {
    for body in [
        r#"{"jsonrpc":"1.0","method":"x"}"#,
        r#"{"method":"x"}"#,
        r#"{"jsonrpc":"2.0","method":5}"#,
        r#"{"jsonrpc":"2.0"}"#,
        r#"{}"#,
    ] {
        assert_eq!(
            raw(body).0.text(),
            error_bytes("null", INVALID_REQUEST),
            "{body}"
        );
    }
}

#[test]
fn the_last_of_duplicate_members_wins() {
    let (reply, _) = raw(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    let (reply, _) = raw(r#"{"jsonrpc":"2.0","id":1,"method":"nope","method":"ping"}"#);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let (reply, _) = raw(r#"{"jsonrpc":"1.0","id":1,"method":"ping","jsonrpc":"2.0"}"#);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let (reply, _) = raw(r#"{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}"#);
    assert_eq!(reply.text(), error_bytes("1", INVALID_REQUEST));
    // A later `id` turns a notification into a request, and back.
    let (reply, _) = raw(r#"{"jsonrpc":"2.0","id":{},"method":"ping","id":"ok"}"#);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":"ok","result":{}}"#);
}

#[test]
fn bodies_that_are_not_utf8_json_are_400_parse_errors() {
    let parse_error =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#;
    let bodies: Vec<Vec<u8>> = vec![
        b"{".to_vec(),
        b"".to_vec(),
        b"   ".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\"}".to_vec(),
        b"\xff".to_vec(),
        b"{'jsonrpc':'2.0'}".to_vec(),
        b"[1,]".to_vec(),
        b"5 5".to_vec(),
        b"nul".to_vec(),
        b"{\"a\":01}".to_vec(),
        b"{\"a\":NaN}".to_vec(),
    ];
    for body in bodies {
        let (reply, transcript) = Request::post_raw(body.clone()).exchange(&endpoint());
        let shown = String::from_utf8_lossy(&body);
        assert_eq!(reply.status, 400, "{shown}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.text(), parse_error, "{shown}");
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Respond(400)],
            "{shown}"
        );
    }
}

#[test]
fn every_reject_reply_parses_as_json_rpc_with_only_the_members_it_defines() {
    for body in [
        "5",
        r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":"x"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":1}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"x"}"#,
    ] {
        let reply: Value = raw(body).0.json();
        let object = reply.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["error", "id", "jsonrpc"], "{body}");
        let mut error: Vec<&str> = reply["error"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        error.sort_unstable();
        assert_eq!(error, ["code", "message"], "{body}");
    }
}
