//! create_document's host answers (SURFACE.md §4): `TitleTaken` is
//! `text({"code":"title-taken"}, error)`, `Unavailable` is
//! `document-unavailable`, `Forbidden` stays the absent result.

mod common;

use chopin_mcp::{CreateAnswer, Outcome};
use common::{Request, call, creation, read_write};
use serde_json::{Value, json};

fn created(answer: CreateAnswer<'static>) -> Value {
    let request = Request::post(&call(json!(1), "create_document", creation()));
    let (reply, effects) = request.answered(&read_write(), |outcome| match outcome {
        Outcome::Create(create) => create.answer(answer),
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!((reply.status, effects), (200, 1));
    reply.json()["result"].clone()
}

fn code(code: &str) -> Value {
    json!({
        "content": [{"type": "text", "text": format!(r#"{{"code":"{code}"}}"#)}],
        "structuredContent": {"code": code},
        "isError": true,
    })
}

#[test]
fn a_taken_title_is_its_code() {
    assert_eq!(created(CreateAnswer::TitleTaken), code("title-taken"));
}

#[test]
fn unavailable_is_its_code_and_forbidden_the_absent_result() {
    assert_eq!(
        created(CreateAnswer::Unavailable),
        code("document-unavailable")
    );
    assert_eq!(
        created(CreateAnswer::Forbidden),
        json!({"content": [], "isError": true})
    );
}
