//! What the tests and benches of both published crates share: the
//! linear-time check ([`linear`]) and the bench plans ([`plans`]). Not
//! published; a dev-dependency only.

pub mod linear;
pub mod plans;
