//! The patterns of DIALECT.md §9.1, checked by hand (no regex engine).

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use super::is_js_whitespace;

/// `^[0-7][0-9A-HJKMNP-TV-Z]{25}$`
pub(crate) fn is_ulid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 26
        && matches!(b[0], b'0'..=b'7')
        && b[1..].iter().all(|&c| {
            c.is_ascii_digit()
                || (c.is_ascii_uppercase() && !matches!(c, b'I' | b'L' | b'O' | b'U'))
        })
}

/// `^[A-Za-z0-9][A-Za-z0-9._:-]*$`
pub(crate) fn is_reference(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-'))
}

/// `^(0|[1-9][0-9]*)$`
pub(crate) fn is_integer(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(b'0') => b.len() == 1,
        Some(b'1'..=b'9') => b.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// `^[a-z][a-z0-9+.-]*:`, case-insensitive.
pub(crate) fn has_scheme(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    for &c in &b[1..] {
        if c == b':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')) {
            return false;
        }
    }
    false
}

/// `^\/images\/[0-9a-f]{64}\.(?:png|jpg|jpeg|webp|gif)$`
pub(crate) fn is_hosted_image(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("/images/") else {
        return false;
    };
    let b = rest.as_bytes();
    if b.len() < 65
        || !b[..64]
            .iter()
            .all(|&c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        || b[64] != b'.'
    {
        return false;
    }
    matches!(&rest[65..], "png" | "jpg" | "jpeg" | "webp" | "gif")
}

/// `[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]`
pub(crate) fn is_hidden(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// Blank per §1.3: empty after trimming JavaScript whitespace.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}
