#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chopin_dialect::fuzz::dialect(data));
