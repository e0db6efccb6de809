//! What the dialect's comparison tests share: the markdown-rs oracle and the
//! tolerated divergences from it, the micromark oracle, the plan generator,
//! and DIALECT.md §12's example plans.
#![allow(dead_code)] // each test binary uses its own part

pub mod differential;
pub mod generate;
pub mod micromark;
pub mod oracle;
pub mod section12;
