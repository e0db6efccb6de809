//! `upload_image` (SURFACE.md §8): an image's bytes, checked, typed and
//! named by their SHA-256, for the host to keep beside a document.

use bytes::Bytes;

use super::{Code, Frame, locator};
use crate::image::{self, ImageType, MAX_IMAGE_BYTES};
use crate::json::{self, Level, WriteJson};
use crate::jsonrpc::RpcError;
use crate::record::Arguments;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"upload_image","title":"Upload an image to a plan document","description":"Upload a PNG, JPEG, WebP or GIF image of at most 1 MiB to a Chopin document and return its path and Markdown. Place the Markdown in the document with update_document. Only people who can read the document can load the image; uploading the same bytes again returns the same path.","#,
    r#""inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":2048,"pattern":"\\S"},"data":{"type":"string","contentEncoding":"base64","maxLength":1398104,"description":"Standard base64 image bytes, at most 1 MiB decoded."},"mimeType":{"type":"string","enum":["image/png","image/jpeg","image/webp","image/gif"]}},"required":["id","data","mimeType"],"additionalProperties":false},"#,
    r#""outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"path":{"type":"string","pattern":"^/images/[0-9a-f]{64}\\.(?:png|jpg|webp|gif)$"},"markdown":{"type":"string"}},"required":["path","markdown"],"additionalProperties":false},{"type":"object","properties":{"code":{"type":"string","enum":["document-unavailable","repository-forbidden","document-archived","too-large","unsupported-type","signature-mismatch"]}},"required":["code"],"additionalProperties":false}]},"#,
    r#""annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "upload_image requires an id or URL, base64 data, and an image mimeType",
};

/// The most UTF-16 code units `data` may have (⌈1 MiB / 3⌉ · 4), counted
/// before anything is decoded.
pub(crate) const MAX_DATA_UNITS: usize = 1_398_104;

/// An upload every check passed: what the host is asked to keep.
pub(crate) struct Upload {
    /// The document's locator, as sent.
    pub locator: String,
    pub kind: ImageType,
    /// The decoded bytes: the only copy of the image the endpoint keeps.
    pub bytes: Bytes,
    pub sha256: [u8; 32],
}

/// Where the checks leave an upload that was well formed.
pub(crate) enum Checked {
    /// Every check passed.
    Upload(Box<Upload>),
    /// `text({"code":…}, error)`, the host not asked.
    Refused(&'static str),
}

/// The host's answer to an upload effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreImageAnswer {
    /// The image is kept for the document (now, or it already was): the
    /// result is the core's path, never one of the host's.
    Stored,
    /// The document is archived (`document-archived`).
    Archived,
    /// The caller may see the document but not change it
    /// (`repository-forbidden`).
    Forbidden,
    /// No such document for this caller, or the store cannot keep images
    /// now (`document-unavailable`).
    Unavailable,
    /// Keeping the image would pass the host's quota (`too-large`).
    QuotaExceeded,
}

/// Checks `arguments` in SURFACE.md §8's order. `Err` is the -32602
/// refusal; `Ok(Refused)` a coded one.
pub(crate) fn arguments(arguments: &Arguments<'_>) -> Result<Checked, RpcError> {
    // (1) Exactly `id`, `data`, `mimeType`; the id a locator; strings.
    let members = arguments
        .members(["id", "data", "mimeType"])
        .ok_or(INVALID)?;
    if members.other {
        return Err(INVALID);
    }
    let [id, data, mime] = members.values;
    let locator = locator(id.ok_or(INVALID)?).ok_or(INVALID)?;
    let data = json::string(data.ok_or(INVALID)?).ok_or(INVALID)?;
    let mime = json::string(mime.ok_or(INVALID)?).ok_or(INVALID)?;
    // (2) One of the four, exactly.
    let Some(kind) = ImageType::from_mime(&mime) else {
        return Ok(Checked::Refused("unsupported-type"));
    };
    // (3) The text's length, before decoding (UTF-16 code units: never
    // more than its UTF-8 bytes, so a short text is not counted).
    let units = if data.len() <= MAX_DATA_UNITS {
        data.len()
    } else {
        data.encode_utf16().count()
    };
    if units > MAX_DATA_UNITS {
        return Ok(Checked::Refused("too-large"));
    }
    // (4) Padded standard base64, then (5) the decoded size.
    let bytes = image::decode_base64(data.as_bytes()).ok_or(INVALID)?;
    if bytes.len() > MAX_IMAGE_BYTES {
        return Ok(Checked::Refused("too-large"));
    }
    // (6) The bytes are what the type says.
    if !kind.signed(&bytes) {
        return Ok(Checked::Refused("signature-mismatch"));
    }
    // (7) Their digest names them.
    let sha256 = image::sha256(&bytes);
    Ok(Checked::Upload(Box::new(Upload {
        locator,
        kind,
        bytes: Bytes::from(bytes),
        sha256,
    })))
}

/// `{"path":p,"markdown":"![](p)"}`.
struct Stored<'a>(&'a str);

impl WriteJson for Stored<'_> {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        let markdown = format!("![]({})", self.0);
        json::object(out, level, &[("path", &self.0), ("markdown", &markdown)]);
    }

    fn len_hint(&self) -> usize {
        2 * self.0.len() + 40
    }
}

/// Appends the result for the host's answer: the core's `path` when stored.
pub(crate) fn write_result(
    out: &mut Vec<u8>,
    frame: Frame<'_>,
    path: &str,
    answer: StoreImageAnswer,
) {
    let code = match answer {
        StoreImageAnswer::Stored => {
            return super::write_text_result(out, frame, &Stored(path), false);
        }
        StoreImageAnswer::Archived => "document-archived",
        StoreImageAnswer::Forbidden => "repository-forbidden",
        StoreImageAnswer::Unavailable => "document-unavailable",
        StoreImageAnswer::QuotaExceeded => "too-large",
    };
    super::write_code(out, frame, Code::new(code));
}
