//! Help texts as the binaries print them, rendered by clap from the flags'
//! definitions on first use: [`HelpText`] reads as a `&str`.

use std::fmt;
use std::ops::Deref;

/// A help text, rendered on first use (each is a function holding its own
/// rendering once made).
#[derive(Clone, Copy)]
pub struct HelpText(fn() -> &'static str);

impl HelpText {
    /// The text `render` gives.
    pub const fn new(render: fn() -> &'static str) -> HelpText {
        HelpText(render)
    }
}

impl Deref for HelpText {
    type Target = str;

    fn deref(&self) -> &str {
        (self.0)()
    }
}

impl fmt::Display for HelpText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl fmt::Debug for HelpText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// What `chopin-mcp-server ARGS` prints when `ARGS` ask for help.
pub fn render(args: &[&str]) -> String {
    match super::read(super::PROGRAM, args) {
        Err(help) => help.to_string(),
        Ok(_) => String::new(),
    }
}
