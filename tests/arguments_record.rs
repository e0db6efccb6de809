//! The members of `tools/call`'s `arguments` that the message reader records
//! in its one pass, against `json::members` walking the same text and
//! `serde_json` reading it (`chopin_mcp::fuzz::message` panics on any
//! difference, on a value marked plain that is not a string without escapes,
//! and on an object recorded that does not fit the record, or not recorded
//! when it does): escaped keys, duplicates, lone surrogates, whitespace,
//! nested values, more members than the record holds, repeated `arguments`
//! and `params`.

use chopin_mcp::fuzz::message;

fn body(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
}

fn arguments(members: &str) -> String {
    body(&format!(
        r#"{{"name":"read_document","arguments":{members}}}"#
    ))
}

#[test]
fn recorded_members_read_as_the_text_reads() {
    let shapes = [
        "{}",
        "{ }",
        r#"{"id":"a"}"#,
        r#"{ "id" : "a" }"#,
        "{\n\t\"id\"\r:\n\"a\"\t}",
        r#"{"id":"a\"b"}"#,
        r#"{"id":"\u0061"}"#,
        r#"{"id":"\ud800"}"#,
        r#"{"id":1}"#,
        r#"{"id":-1.5e3}"#,
        r#"{"id":null}"#,
        r#"{"id":true,"a":false}"#,
        r#"{"id":{"id":"x"}}"#,
        r#"{"id":["a",{"b":"}"}]}"#,
        r#"{"id":"a","id":"b"}"#,
        r#"{"id":"a","id":1}"#,
        r#"{"id":1,"id":"a"}"#,
        r#"{"id":"a\n","id":"b"}"#,
        r#"{"id":"a","id":"b\n"}"#,
        r#"{"\u0069d":"a"}"#,
        r#"{"\u0069d":"a","id":"b"}"#,
        r#"{"id":"a","\u0069d":"b\/"}"#,
        r#"{"\ud800":"a","id":"b"}"#,
        r#"{"id":"b","\ud800":"a"}"#,
        r#"{"\udc00x":1}"#,
        r#"{"\ud83d\ude00":1}"#,
        r#"{"𐀀":1,"\ud800\udc00":2}"#,
        r#"{"\ud800\udc00":"x","id":"y"}"#,
        r#"{"repository":"o/n","includeArchived":true}"#,
        r#"{"repository":"o/n","includeArchived":"true","x":1}"#,
        r#"{"a":1,"b":2,"c":3}"#,
        r#"{"a":1,"b":2,"c":3,"id":"d"}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"id":"e"}"#,
        r#"{"id":"a","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}"#,
        r#"{"id":"a","id":"b","id":"c","id":"d","id":"e"}"#,
        r#"{"\ud800":1,"a":1,"b":2,"c":3,"d":4}"#,
        r#"{"":"","":1}"#,
        r#"{"é😀":"é😀","id":"é"}"#,
    ];
    for shape in shapes {
        let text = arguments(shape);
        assert!(message(text.as_bytes()), "{text}");
    }
}

#[test]
fn more_members_than_a_record_holds_are_walked() {
    for count in 0..12 {
        let members: Vec<String> = (0..count).map(|i| format!(r#""k{i}":{i}"#)).collect();
        for last in ["", r#","id":"x""#] {
            let shape = format!("{{{}{}}}", members.join(","), last);
            let shape = shape.replacen("{,", "{", 1);
            let text = arguments(&shape);
            assert!(message(text.as_bytes()), "{text}");
        }
    }
}

#[test]
fn string_values_of_every_length_read_as_the_text_reads() {
    // A string value is read sixteen bytes a step: an escape, a raw control
    // character, a wide character or the quote at each place of a value of
    // each length (across blocks), then the message's end or more members.
    let specials = [
        "", "\"", "\\\"", "\\n", "\\u00e9", "\\ud800", "\u{1}", "\\x", "é", "😀", "\\",
    ];
    for len in 0..52 {
        for at in 0..=len {
            for special in specials {
                let value = format!("{}{special}{}", "a".repeat(at), "b".repeat(len - at));
                for shape in [
                    format!(r#"{{"id":"{value}"}}"#),
                    format!(r#"{{"id":"{value}" , "x":"{value}"}}"#),
                ] {
                    message(arguments(&shape).as_bytes());
                }
            }
        }
    }
}

#[test]
fn the_keys_compared_whole_read_as_the_text_reads() {
    // `"id":` and `"repository":` are compared whole; near misses, other
    // spellings and whitespace take the long way, to the same members.
    let keys = [
        r#""id":"#,
        r#""id" :"#,
        r#""id": "#,
        r#""idx":"#,
        r#""i":"#,
        r#""\u0069d":"#,
        r#""id\"":"#,
        r#""repository":"#,
        r#""repository" :"#,
        r#""repositoryx":"#,
        r#""repositor":"#,
        r#""repos\u0069tory":"#,
        r#""Repository":"#,
    ];
    for first in keys {
        for second in keys {
            for shape in [
                format!(r#"{{{first}"a"}}"#),
                format!(r#"{{{first}"a",{second}1}}"#),
                format!(r#"{{ {first}"a" , {second}"b"}}"#),
                format!(r#"{{"x":1,{first}{{"id":2}},{second}"c"}}"#),
            ] {
                assert!(message(arguments(&shape).as_bytes()), "{shape}");
            }
        }
    }
    // Cut anywhere, the message is refused as serde_json refuses it.
    let whole = arguments(r#"{"id":"a","repository":"o/n"}"#);
    for cut in 0..whole.len() {
        message(&whole.as_bytes()[..cut]);
    }
}

#[test]
fn arguments_too_long_for_the_record_are_walked() {
    // The last value ending at offset 65,535 from the `{` (recorded), and
    // one byte further (walked), with whitespace after it or none.
    for length in [65_535 - 17, 65_535 - 16, 65_535 - 15] {
        for space in ["", " \n"] {
            let shape = format!(r#"{{"id":"a","x":"{}"{space}}}"#, "a".repeat(length));
            assert!(message(arguments(&shape).as_bytes()));
        }
    }
    for length in [65_000, 65_520, 65_535, 65_536, 70_000] {
        let shape = format!(r#"{{"x":"{}","id":"a"}}"#, "a".repeat(length));
        assert!(message(arguments(&shape).as_bytes()));
        let shape = format!(r#"{{"id":"a","x":"{}"}}"#, "a".repeat(length));
        assert!(message(arguments(&shape).as_bytes()));
    }
}

#[test]
fn the_last_arguments_and_params_are_the_ones_recorded() {
    for params in [
        r#"{"arguments":{"id":"a"},"arguments":{"id":"b"}}"#,
        r#"{"arguments":{"id":"a"},"arguments":1}"#,
        r#"{"arguments":{"id":"a"},"arguments":[{"id":"c"}]}"#,
        r#"{"arguments":1,"arguments":{"id":"b"}}"#,
        r#"{"arguments":{"a":1,"b":2,"c":3,"d":4,"e":5},"arguments":{"id":"b"}}"#,
        r#"{"arguments":{"id":"b"},"arguments":{"a":1,"b":2,"c":3,"d":4,"e":5}}"#,
        r#"{"\u0061rguments":{"id":"a"},"arguments":{"id":"b"}}"#,
        r#"{"arguments":{"id":"a"},"\u0061rguments":"x"}"#,
        r#"{"arguments":{"id":"a"},"\ud800":1}"#,
        r#"{"_meta":{"arguments":{"id":"x"}},"arguments":{"id":"b"}}"#,
    ] {
        let text = body(params);
        assert!(message(text.as_bytes()), "{text}");
    }
    for text in [
        r#"{"params":{"arguments":{"id":"a"}},"params":{"name":"n"}}"#,
        r#"{"params":{"arguments":{"id":"a"}},"params":{"arguments":{"x":1}}}"#,
        r#"{"params":{"arguments":{"id":"a"}},"params":1}"#,
        r#"{"params":{"arguments":{"id":"a"}},"arguments":{"id":"b"}}"#,
    ] {
        assert!(message(text.as_bytes()), "{text}");
    }
}
