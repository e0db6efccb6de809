#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chopin_mcp::fuzz::image(data));
