//! The message reader is linear on adversarial bodies: each family is read
//! at three sizes, each double the last, and the reader's step counter (its
//! main loop's turns, plus the bytes it moved over when it read the whole
//! text) must grow by at most a constant factor close to 2 per doubling. No
//! wall-clock assertions.

use chopin_mcp::fuzz::message_steps;

use chopin_test_support::linear;

fn assert_linear(family: &str, make: impl Fn(usize) -> String) {
    linear::assert_linear(family, [4_000, 8_000, 16_000], make, |body| {
        let s = message_steps(body);
        // Every byte is looked at: at least one step per few bytes.
        assert!(
            s * 8 >= body.len(),
            "{family}: {s} steps for {} bytes",
            body.len()
        );
        s as u64
    });
}

#[test]
fn nesting() {
    assert_linear("deep arrays, closed", |n| {
        format!(r#"{{"params":{}{}}}"#, "[".repeat(n), "]".repeat(n))
    });
    assert_linear("deep arrays, unclosed", |n| {
        format!(r#"{{"params":{}"#, "[".repeat(n))
    });
    assert_linear("deep objects", |n| {
        format!(r#"{{"params":{}1{}}}"#, r#"{"a":"#.repeat(n), "}".repeat(n))
    });
    assert_linear("deep _meta", |n| {
        format!(
            r#"{{"params":{{"_meta":{}1{}}}}}"#,
            r#"{"_meta":["#.repeat(n),
            "]}".repeat(n)
        )
    });
}

#[test]
fn members_and_duplicates() {
    assert_linear("many members", |n| {
        format!(r#"{{"jsonrpc":"2.0"{}}}"#, r#","a":1"#.repeat(n))
    });
    assert_linear("repeated params", |n| {
        format!(
            r#"{{{}"id":1}}"#,
            r#""params":{"name":"x","_meta":{}},"#.repeat(n)
        )
    });
    assert_linear("repeated _meta", |n| {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"v"},"#;
        format!(r#"{{"params":{{{}"name":1}}}}"#, meta.repeat(n))
    });
}

#[test]
fn escapes() {
    assert_linear("escaped id", |n| {
        format!(r#"{{"id":"{}"}}"#, r"\u0041".repeat(n))
    });
    assert_linear("escaped quotes", |n| {
        format!(r#"{{"id":"{}"}}"#, r#"\""#.repeat(n))
    });
    assert_linear("escaped keys at every picked level", |n| {
        let key = r#""\u005f\u006deta":{"\u0069":1},"#;
        format!(r#"{{"\u0070arams":{{{}"x":1}}}}"#, key.repeat(n))
    });
    assert_linear("long escaped key", |n| {
        format!(r#"{{"params":{{"{}":1}}}}"#, r"\u0061".repeat(n))
    });
}

#[test]
fn arguments() {
    assert_linear("many arguments", |n| {
        format!(
            r#"{{"params":{{"arguments":{{"id":"a"{}}}}}}}"#,
            r#","a":1"#.repeat(n)
        )
    });
    assert_linear("escaped argument keys", |n| {
        format!(
            r#"{{"params":{{"arguments":{{{}"x":1}}}}}}"#,
            r#""\u0069d":"\u0061","#.repeat(n)
        )
    });
    assert_linear("repeated arguments", |n| {
        format!(
            r#"{{"params":{{{}"name":"n"}}}}"#,
            r#""arguments":{"id":"a","b":[1]},"#.repeat(n)
        )
    });
    assert_linear("deep argument values", |n| {
        format!(
            r#"{{"params":{{"arguments":{{"id":{}1{}}}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    });
}
