#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chopin_mcp::implementation::fuzz::fold_log(data));
