//! What the tests and benches of both published crates share: the
//! linear-time check ([`linear`]) and the bench plans ([`plans`]); and the
//! workspace's import graph ([`doors`]), which `tests/one_way_doors.rs`
//! keeps free of circles. Not published; a dev-dependency only.

pub mod doors;
pub mod linear;
pub mod plans;
