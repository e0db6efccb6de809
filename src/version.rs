//! MCP protocol versions (SPEC.md §6).
//!
//! Version detection is a step of its own: a request's version comes from its
//! `mcp-protocol-version` header, defaulting to 2025-03-26. A later revision
//! that carries the version elsewhere (in `_meta`) adds its rule here.

use std::fmt;

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
    /// 2025-11-25.
    V2025_11_25,
}

impl ProtocolVersion {
    /// Every revision this crate implements, oldest first.
    pub const ALL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The revision assumed for a request that names none.
    pub const DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The revision's date string, e.g. `2025-03-26`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
        }
    }

    /// The revision named by `text`, if this crate knows it.
    pub fn parse(text: &[u8]) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|version| version.as_str().as_bytes() == text)
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
