//! `upload_image` in the fuzz bodies: answering its effect (every answer,
//! after checking what it carries), and `image`, the target for the base64
//! decoder, the signatures and the tool's order of checks.

use serde_json::Value;

use super::{Cursor, check_response};
use crate::image::{self, ImageType, MAX_IMAGE_BYTES};
use crate::tools::upload::MAX_DATA_UNITS;
use crate::{
    Config, Endpoint, Header, Outcome, RequestParts, SequentialIds, StoreImage, StoreImageAnswer,
};

/// Answers an upload effect with one of its five answers, after checking
/// that it carries only what every check passed: bytes of at most 1 MiB
/// with their type's signature, the digest of exactly those bytes, and the
/// path that digest names.
pub(super) fn answer_store_image(store: StoreImage<u8>, choice: u8) -> Outcome<u8> {
    let bytes = store.bytes();
    let kind = store.image_type();
    assert!(
        bytes.len() <= MAX_IMAGE_BYTES,
        "an image over 1 MiB reached the host"
    );
    assert!(
        kind.signed(&bytes),
        "bytes without their signature reached the host"
    );
    assert_eq!(
        store.sha256(),
        image::sha256(&bytes),
        "the digest is not the bytes'"
    );
    let hex = store.sha256_hex();
    assert_eq!(store.path(), format!("/images/{hex}.{}", kind.extension()));
    store.answer(match choice % 5 {
        0 => StoreImageAnswer::Stored,
        1 => StoreImageAnswer::Archived,
        2 => StoreImageAnswer::Forbidden,
        3 => StoreImageAnswer::Unavailable,
        _ => StoreImageAnswer::QuotaExceeded,
    })
}

/// What the reference reading of SURFACE.md §8 expects of `data`: whether
/// it matches `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`,
/// written as the regular expression reads, not as the decoder works.
fn is_padded_base64(data: &[u8]) -> bool {
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    let pads = data.iter().rev().take_while(|b| **b == b'=').count();
    data.len() % 4 == 0 && pads <= 2 && data[..data.len() - pads].iter().all(alphabet)
}

/// Standard padded base64 of `bytes`.
fn encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (i, b)| word | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(word >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `image`: the decoder agrees with the regular expression, round-trips
/// what it decodes, and `upload_image` through a whole exchange answers by
/// SURFACE.md §8's order: an effect exactly when every check passes,
/// carrying the bytes the reference decoding gives; a coded refusal or
/// -32602 otherwise, the host never asked.
pub fn image(data: &[u8]) {
    let mut input = Cursor { data };
    let control = input.byte();
    let mime = [
        "image/png",
        "image/jpeg",
        "image/webp",
        "image/gif",
        "image/PNG",
        "image/svg+xml",
    ][usize::from(control % 6)];
    // Often a real signature, encoded, followed by the fuzzer's bytes.
    let text: Vec<u8> = if control & 8 != 0 {
        let prefix: &[u8] = match control >> 4 & 3 {
            0 => b"\x89PNG\r\n\x1a\n",
            1 => b"\xff\xd8\xff",
            2 => b"RIFF\x01\x00\x00\x00WEBP",
            _ => b"GIF89a",
        };
        let mut raw = prefix.to_vec();
        raw.extend_from_slice(input.rest());
        encode(&raw).into_bytes()
    } else {
        input.rest().to_vec()
    };

    let decoded = image::decode_base64(&text);
    assert_eq!(
        decoded.is_some(),
        is_padded_base64(&text),
        "decoder and pattern disagree"
    );
    if let Some(bytes) = &decoded {
        let pads = text.iter().rev().take_while(|b| **b == b'=').count();
        assert_eq!(bytes.len(), text.len() / 4 * 3 - pads);
        let again = encode(bytes);
        assert_eq!(image::decode_base64(again.as_bytes()).as_ref(), Some(bytes));
        // Only the unused low bits of the last group may differ.
        assert_eq!(again.len(), text.len());
        let keep = text.len().saturating_sub(4);
        assert_eq!(again.as_bytes()[..keep], text[..keep]);
    }

    let Ok(data) = std::str::from_utf8(&text) else {
        return;
    };
    let arguments = serde_json::json!({"id": "doc", "data": data, "mimeType": mime});
    let body = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "upload_image", "arguments": arguments},
    }))
    .unwrap_or_default();
    let config = Config::new()
        .enable_upload()
        .id_source(SequentialIds::new(1));
    let Ok(endpoint) = Endpoint::new(config) else {
        unreachable!("the fuzz configuration is valid")
    };
    let headers = [Header::new("authorization", b"Bearer x")];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let mut outcome: Outcome<u8> = endpoint.handle(&parts, bytes::Bytes::from(body));
    let mut given = None;
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.answer(Some(1)),
            Outcome::StoreImage(store) => {
                assert!(given.is_none(), "two effects for one upload");
                given = Some((store.image_type(), store.bytes()));
                answer_store_image(store, 0)
            }
            other => panic!("an upload asked for {other:?}"),
        };
    };
    check_response(&response, &[], false);

    let kind = ImageType::from_mime(mime);
    let expected = if kind.is_none() {
        Err("unsupported-type")
    } else if data.encode_utf16().count() > MAX_DATA_UNITS {
        Err("too-large")
    } else {
        match &decoded {
            None => Err("-32602"),
            Some(bytes) if bytes.len() > MAX_IMAGE_BYTES => Err("too-large"),
            Some(bytes) if !kind.is_some_and(|k| k.signed(bytes)) => Err("signature-mismatch"),
            Some(bytes) => Ok(bytes.clone()),
        }
    };
    let reply: Value = serde_json::from_slice(response.body()).unwrap_or_default();
    match expected {
        Ok(bytes) => {
            let (given_kind, given_bytes) = given.unwrap_or_else(|| panic!("no effect: {reply}"));
            assert_eq!(Some(given_kind), kind);
            assert_eq!(given_bytes, bytes);
            let path = image::path(&image::sha256(&bytes), given_kind);
            assert_eq!(reply["result"]["structuredContent"]["path"], path.as_str());
        }
        Err(refusal) => {
            assert!(given.is_none(), "a refused upload reached the host");
            if refusal == "-32602" {
                assert_eq!(reply["error"]["code"], -32602);
            } else {
                assert_eq!(reply["result"]["structuredContent"]["code"], refusal);
            }
        }
    }
}
