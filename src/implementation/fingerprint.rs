//! The replay fingerprint of a lifecycle call (§2.4).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use sha2::{Digest, Sha256};

use super::event::Event;

/// Lowercase hex SHA-256 of the compact JSON `{"idempotencyKey", "tool",
/// "runId", …the tool's fields in its input schema's order}` (nested
/// evidence items in their schema order, arrays as sent; no document `id`:
/// keys are per document). The store keeps it beside the key, so that a
/// retry is told from a conflict.
pub fn fingerprint(run_id: &str, event: &Event) -> String {
    // Strings, booleans and arrays of them always serialize.
    let json = serde_json::to_vec(&Fingerprinted { run_id, event }).unwrap_or_default();
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(&json) {
        for nibble in [byte >> 4, byte & 15] {
            hex.push(char::from(b"0123456789abcdef"[usize::from(nibble)]));
        }
    }
    hex
}

/// The fingerprinted object.
struct Fingerprinted<'a> {
    run_id: &'a str,
    event: &'a Event,
}

impl Serialize for Fingerprinted<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("idempotencyKey", &self.event.idempotency_key)?;
        map.serialize_entry("tool", self.event.command.tool())?;
        map.serialize_entry("runId", self.run_id)?;
        self.event.command.write_fields(&mut map, false)?;
        map.end()
    }
}
