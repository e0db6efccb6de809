#![no_main]
//! The dialect parser against markdown-rs on inputs up to 2 KiB (markdown-rs
//! is super-linear, so larger inputs would only measure its slowness). The
//! comparison, with its documented tolerances, is the one
//! `tests/dialect_differential.rs` runs (`dialect/tests/`).

#[path = "../../tests/common/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../../tests/common/differential.rs"]
mod differential;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.len() > 2048 {
        return;
    }
    if let Ok(plan) = std::str::from_utf8(data) {
        if let Err(difference) = differential::compare(plan) {
            panic!("{plan:?}\n{difference}");
        }
    }
});
