//! Shared test helpers.
#![allow(dead_code)]

pub mod oracle;
pub mod section12;
