//! The planner effect's outcome (`i`, `src/wire.rs`): the host input
//! `{id, instruction, checkout?}` and the client, as JSON.

use chopin_mcp::InvokePlanner;
use serde::Serialize;

/// `invoke.invoke`'s input, in `InvokePlannerInput`'s order, and its third
/// argument.
#[derive(Serialize)]
struct InvokeFields<'a> {
    id: &'a str,
    instruction: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    checkout: Option<&'a str>,
    /// Not the host input's: `invoke`'s third argument (SURFACE.md §11).
    client: InvokeClient<'a>,
}

/// The client the effect names (SURFACE.md §10): `{name, version}`.
#[derive(Serialize)]
struct InvokeClient<'a> {
    name: &'a str,
    version: &'a str,
}

/// Appends the planner effect's outcome: its tag, then its fields as JSON.
pub(crate) fn push_invoke(out: &mut Vec<u8>, invoke: &InvokePlanner<()>) {
    let client = invoke.client();
    let fields = InvokeFields {
        id: invoke.locator(),
        instruction: invoke.instruction(),
        checkout: invoke.checkout(),
        client: InvokeClient {
            name: &client.name,
            version: &client.version,
        },
    };
    out.push(b'i');
    // Strings only: serializing cannot fail.
    let _ = serde_json::to_writer(&mut *out, &fields);
}
