//! Images (SURFACE.md §8): the four types `upload_image` takes, their
//! signatures, the standard base64 the bytes arrive in, and the digest
//! that names them. A leaf: nothing here knows of tools or exchanges.

use sha2::{Digest, Sha256};

/// The most bytes an image may have once decoded (1 MiB).
pub(crate) const MAX_IMAGE_BYTES: usize = 1_048_576;

/// An image type `upload_image` accepts and `/images/<file>` serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageType {
    /// `image/png`, stored as `.png`.
    Png,
    /// `image/jpeg`, stored as `.jpg` (and served as `.jpeg` too).
    Jpeg,
    /// `image/webp`, stored as `.webp`.
    Webp,
    /// `image/gif`, stored as `.gif`.
    Gif,
}

impl ImageType {
    /// The four, in the schema's order.
    pub const ALL: [ImageType; 4] = [
        ImageType::Png,
        ImageType::Jpeg,
        ImageType::Webp,
        ImageType::Gif,
    ];

    /// The media type: `image/png`, `image/jpeg`, `image/webp`, `image/gif`.
    pub const fn mime(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Webp => "image/webp",
            ImageType::Gif => "image/gif",
        }
    }

    /// The extension of its path, without the dot: `png`, `jpg`, `webp`,
    /// `gif`.
    pub const fn extension(self) -> &'static str {
        match self {
            ImageType::Png => "png",
            ImageType::Jpeg => "jpg",
            ImageType::Webp => "webp",
            ImageType::Gif => "gif",
        }
    }

    /// The type whose [`mime`](Self::mime) is exactly `mime` (case and all:
    /// `image/PNG` is none).
    pub fn from_mime(mime: &str) -> Option<ImageType> {
        ImageType::ALL.into_iter().find(|kind| kind.mime() == mime)
    }

    /// The type a served file's extension names: its own, or `jpeg` for
    /// [`Jpeg`](Self::Jpeg). Lowercase only.
    pub(crate) fn from_extension(extension: &str) -> Option<ImageType> {
        match extension {
            "jpeg" => Some(ImageType::Jpeg),
            _ => ImageType::ALL
                .into_iter()
                .find(|kind| kind.extension() == extension),
        }
    }

    /// Whether `bytes` begin with the type's signature: PNG `89 50 4E 47
    /// 0D 0A 1A 0A`, JPEG `FF D8 FF`, WebP `RIFF` at 0 and `WEBP` at 8, GIF
    /// `GIF87a` or `GIF89a`.
    pub(crate) fn signed(self, bytes: &[u8]) -> bool {
        match self {
            ImageType::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            ImageType::Jpeg => bytes.starts_with(b"\xff\xd8\xff"),
            ImageType::Webp => bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"),
            ImageType::Gif => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        }
    }
}

/// The SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// `digest` as 64 lowercase hex digits.
pub(crate) fn hex(digest: &[u8; 32]) -> String {
    let mut hex = String::with_capacity(64);
    for byte in digest {
        for nibble in [byte >> 4, byte & 15] {
            hex.push(char::from(b"0123456789abcdef"[usize::from(nibble)]));
        }
    }
    hex
}

/// The 32 bytes 64 lowercase hex digits spell (uppercase is not a digest's
/// spelling here: its path would be another).
pub(crate) fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let digits = text.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let value = |digit: u8| match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    };
    let mut digest = [0; 32];
    for (byte, pair) in digest.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = value(pair[0])? << 4 | value(pair[1])?;
    }
    Some(digest)
}

/// `/images/<hex>.<extension>`: where an image is served.
pub(crate) fn path(digest: &[u8; 32], kind: ImageType) -> String {
    format!("/images/{}.{}", hex(digest), kind.extension())
}

/// Each byte's value in the standard alphabet, or `INVALID`.
const INVALID: u8 = 0xff;
const DECODE: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut table = [INVALID; 256];
    let mut index = 0;
    while index < 64 {
        table[alphabet[index] as usize] = index as u8;
        index += 1;
    }
    table
};

/// Decodes padded standard base64 (RFC 4648 §4): groups of four from the
/// alphabet `A–Z a–z 0–9 + /`, the last group possibly `xx==` or `xxx=`; no
/// whitespace, no URL alphabet; `""` is no bytes. The low bits the last
/// group does not use are ignored, as JavaScript's `atob` ignores them.
/// `None` for anything else. One pass; the output is allocated once.
pub(crate) fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 4 != 0 {
        return None;
    }
    let (body, last) = match text.len() {
        0 => return Some(Vec::new()),
        len => text.split_at(len - 4),
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for group in body.chunks_exact(4) {
        let word = sextets(group)?;
        out.extend_from_slice(&word.to_be_bytes()[1..]);
    }
    let (kept, group) = match last {
        [a, b, b'=', b'='] => (1, [*a, *b, b'A', b'A']),
        [a, b, c, b'='] => (2, [*a, *b, *c, b'A']),
        [a, b, c, d] => (3, [*a, *b, *c, *d]),
        _ => return None,
    };
    let word = sextets(&group)?;
    out.extend_from_slice(&word.to_be_bytes()[1..1 + kept]);
    Some(out)
}

/// Four alphabet characters as 24 bits, or `None` for any other byte.
#[inline]
fn sextets(group: &[u8]) -> Option<u32> {
    let [a, b, c, d] = [group[0], group[1], group[2], group[3]].map(|x| DECODE[usize::from(x)]);
    // Every alphabet value fits six bits; `INVALID` does not.
    if (a | b | c | d) & 0xc0 != 0 {
        return None;
    }
    Some(u32::from(a) << 18 | u32::from(b) << 12 | u32::from(c) << 6 | u32::from(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_standard_base64_decodes_and_nothing_else_does() {
        for (text, bytes) in [
            ("", &b""[..]),
            ("iVBORw0KGgo=", b"\x89PNG\r\n\x1a\n"),
            ("iVBORw0KGgp=", b"\x89PNG\r\n\x1a\n"),
            ("QQ==", b"A"),
            ("QR==", b"A"),
            ("QUI=", b"AB"),
            ("QUJD", b"ABC"),
            ("+/+/", b"\xfb\xff\xbf"),
        ] {
            assert_eq!(
                decode_base64(text.as_bytes()).as_deref(),
                Some(bytes),
                "{text}"
            );
        }
        for text in [
            "iVBORw0KGgo",
            "iVBORw0K\nGgo=",
            "QQ=",
            "Q===",
            "====",
            "QQ==QUJD",
            "-_-_",
            "QU I",
            "QUJD ",
            "QQ=A",
            "not base64!",
            "é===",
        ] {
            assert_eq!(decode_base64(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn hex_round_trips_in_lowercase_only() {
        let digest = sha256(b"");
        let text = hex(&digest);
        assert_eq!(
            text,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(parse_hex(&text), Some(digest));
        assert_eq!(parse_hex(&text.to_uppercase()), None);
        assert_eq!(parse_hex(&text[1..]), None);
    }
}
