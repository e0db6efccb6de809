//! Node-API link settings for the addon (on macOS: symbols resolved at load).
fn main() {
    napi_build::setup();
}
