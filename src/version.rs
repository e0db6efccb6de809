//! MCP protocol versions and eras (SPEC.md §6, MODERN.md §1–§2).
//!
//! Version detection is a step of its own, in two parts: [`classify`] reads
//! the `mcp-protocol-version` header from the head (pipeline step 4), and
//! [`route`] decides a request's era once the body is parsed (step 10a), from
//! the header's class and whether the body claims the modern era.

use std::fmt;

use crate::request::trim_ows;

/// A protocol revision this crate knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05.
    V2024_11_05,
    /// 2025-03-26: the default when a request names none; the only revision
    /// with JSON-RPC batches.
    V2025_03_26,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-11-25: the newest handshake-era revision.
    V2025_11_25,
    /// 2026-07-28: the first modern revision (no `initialize`; version and
    /// client capabilities in each request's `_meta`).
    V2026_07_28,
}

/// The two eras of MCP revisions, which frame requests and replies differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// Handshake era (2024-11-05 to 2025-11-25): `initialize`, the version
    /// in the `mcp-protocol-version` header, JSON-RPC errors with HTTP 200.
    Legacy,
    /// Modern era (2026-07-28): no handshake, the version and capabilities in
    /// every request's `_meta`, standard `Mcp-*` headers checked against the
    /// body, errors with HTTP 400/404.
    Modern,
}

impl Era {
    /// `legacy` or `modern`, e.g. for logs and metric labels.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl ProtocolVersion {
    /// Every revision this crate implements, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The revision assumed for a request that names none and does not claim
    /// the modern era.
    pub const DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The revision's date string, e.g. `2025-03-26`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named by `text`, if this crate knows it.
    pub fn parse(text: &[u8]) -> Option<ProtocolVersion> {
        // A match, not a search of `ALL` by `as_str`: the compiler compares
        // the ten bytes as words (the `version` tests check both agree).
        let version = match text {
            b"2024-11-05" => ProtocolVersion::V2024_11_05,
            b"2025-03-26" => ProtocolVersion::V2025_03_26,
            b"2025-06-18" => ProtocolVersion::V2025_06_18,
            b"2025-11-25" => ProtocolVersion::V2025_11_25,
            b"2026-07-28" => ProtocolVersion::V2026_07_28,
            _ => return None,
        };
        Some(version)
    }

    /// The era the revision belongs to.
    ///
    /// ```
    /// use chopin_mcp::{Era, ProtocolVersion};
    /// assert_eq!(ProtocolVersion::V2025_11_25.era(), Era::Legacy);
    /// assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Modern);
    /// ```
    pub fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether JSON-RPC batches (arrays) are accepted under this revision.
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The class of a request's `mcp-protocol-version` header (MODERN.md §2,
/// step 4): every line, each OWS-trimmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderClass {
    /// A: no such header.
    Absent,
    /// L: one line naming a configured legacy version.
    Legacy(ProtocolVersion),
    /// M: one line naming a configured modern version.
    Modern(ProtocolVersion),
    /// R: anything else (unknown, unconfigured, empty, several lines).
    Refused,
}

/// Classifies the header's lines against the configured versions.
pub(crate) fn classify<'a>(
    mut lines: impl Iterator<Item = &'a [u8]>,
    configured: &[ProtocolVersion],
) -> HeaderClass {
    let line = match (lines.next(), lines.next()) {
        (None, _) => return HeaderClass::Absent,
        (Some(line), None) => line,
        (Some(_), Some(_)) => return HeaderClass::Refused,
    };
    match ProtocolVersion::parse(trim_ows(line)).filter(|v| configured.contains(v)) {
        Some(version) if version.era() == Era::Modern => HeaderClass::Modern(version),
        Some(version) => HeaderClass::Legacy(version),
        None => HeaderClass::Refused,
    }
}

impl HeaderClass {
    /// Whether the era decision reads the body's claim (A and R only: a
    /// legacy header never has its `_meta` read).
    pub(crate) fn reads_claim(self) -> bool {
        matches!(self, HeaderClass::Absent | HeaderClass::Refused)
    }
}

/// What a parsed body looks like to the era decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A JSON object; `claim`: its `params._meta` holds
    /// `io.modelcontextprotocol/protocolVersion` (read only when
    /// [`HeaderClass::reads_claim`]).
    Object { claim: bool },
    /// An array or any other JSON value.
    Other,
}

/// Where a parsed request goes (MODERN.md §2, step 10a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// SPEC.md §5–§7 under this revision.
    Legacy(ProtocolVersion),
    /// The modern ladder M1–M7.
    Modern,
    /// M + a non-object: 400 `-32600 "invalid request"`, id null.
    InvalidRequest,
    /// R otherwise: the legacy version error.
    UnsupportedVersion,
}

/// The era table: header class × body shape (and claim) → route.
pub(crate) fn route(class: HeaderClass, shape: Shape) -> Route {
    let claim = matches!(shape, Shape::Object { claim: true });
    match (class, shape) {
        (HeaderClass::Absent | HeaderClass::Refused, _) if claim => Route::Modern,
        (HeaderClass::Absent, _) => Route::Legacy(ProtocolVersion::DEFAULT),
        (HeaderClass::Legacy(version), _) => Route::Legacy(version),
        (HeaderClass::Modern(_), Shape::Object { .. }) => Route::Modern,
        (HeaderClass::Modern(_), Shape::Other) => Route::InvalidRequest,
        (HeaderClass::Refused, _) => Route::UnsupportedVersion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_parses_from_its_own_string_only() {
        for version in ProtocolVersion::ALL {
            assert_eq!(
                ProtocolVersion::parse(version.as_str().as_bytes()),
                Some(version)
            );
            let text = version.as_str().as_bytes();
            assert_eq!(ProtocolVersion::parse(&text[..9]), None);
            assert_eq!(ProtocolVersion::parse(&[text, b" "].concat()), None);
        }
        assert_eq!(ProtocolVersion::parse(b"2026-07-29"), None);
        assert_eq!(ProtocolVersion::parse(b""), None);
    }

    #[test]
    fn the_header_is_classified_by_every_line() {
        let all = ProtocolVersion::ALL;
        let legacy = &all[..4];
        let class = |lines: &[&[u8]], configured: &[ProtocolVersion]| {
            classify(lines.iter().copied(), configured)
        };
        assert_eq!(class(&[], &all), HeaderClass::Absent);
        assert_eq!(
            class(&[b" 2025-06-18\t"], &all),
            HeaderClass::Legacy(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(
            class(&[b"2026-07-28"], &all),
            HeaderClass::Modern(ProtocolVersion::V2026_07_28)
        );
        assert_eq!(class(&[b"2026-07-28"], legacy), HeaderClass::Refused);
        for refused in [&[&b""[..]][..], &[b"v999"], &[b"2025-06-18", b"2025-06-18"]] {
            assert_eq!(class(refused, &all), HeaderClass::Refused);
        }
    }

    #[test]
    fn the_era_table_follows_class_and_claim() {
        use HeaderClass::*;
        let v = ProtocolVersion::V2025_06_18;
        let m = ProtocolVersion::V2026_07_28;
        let claim = Shape::Object { claim: true };
        let plain = Shape::Object { claim: false };
        assert_eq!(route(Absent, claim), Route::Modern);
        assert_eq!(
            route(Absent, plain),
            Route::Legacy(ProtocolVersion::DEFAULT)
        );
        assert_eq!(
            route(Absent, Shape::Other),
            Route::Legacy(ProtocolVersion::DEFAULT)
        );
        assert_eq!(route(Legacy(v), claim), Route::Legacy(v));
        assert_eq!(route(Modern(m), plain), Route::Modern);
        assert_eq!(route(Modern(m), Shape::Other), Route::InvalidRequest);
        assert_eq!(route(Refused, claim), Route::Modern);
        assert_eq!(route(Refused, plain), Route::UnsupportedVersion);
        assert_eq!(route(Refused, Shape::Other), Route::UnsupportedVersion);
    }
}
