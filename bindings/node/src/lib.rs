//! chopin-mcp's endpoint as a Node-API addon, for the npm package in this
//! folder (`index.cjs`, `index.mjs`, `index.d.ts`, `lib/`).
//!
//! The drive loop runs in JavaScript: each step is one call into the addon
//! (a plain function taking the endpoint's number), and each effect is a
//! plain, awaited call of the host's JavaScript function. Nothing calls back
//! from Rust into JavaScript, and no thread is started.
//!
//! The exchanges in flight are kept here, in numbered slots the JavaScript
//! side hands out (the caller value never crosses: it stays in JavaScript,
//! and the endpoint's caller type is `()`). What crosses is flat: the method
//! and header values in, one string out per step (`src/wire.rs` has the
//! format; a create's or update's plan and a response body from 1 KiB are
//! a second string, made from the endpoint's own bytes rather than copied
//! into the first), plain strings, numbers and byte arrays for the host's
//! answers.
//! The exports a request crosses are plain Node-API callbacks
//! (`src/ffi.rs`); the others are napi-rs's, in this file.
//!
//! Every export catches unwinding (`catch_unwind`): a panic, were one ever
//! to happen, becomes a JavaScript exception instead of aborting the
//! process.
//!
//! The rooms: [`Core`], an endpoint and its slots, in `src/exchanges.rs`;
//! the steps that start an exchange and take in its body, and the outcome
//! each step writes, in `src/step/`; each effect's answer (authenticate,
//! list, read, create, update, and rename, archive or restore) in
//! `src/answer/`; the implementation rules for a TypeScript host in
//! `src/rules.rs`; the endpoint's settings in `src/options.rs`; the wire
//! format in `src/wire.rs`.

mod answer;
mod exchanges;
mod ffi;
mod options;
mod prepare;
mod rules;
mod step;
mod wire;

pub use answer::{
    AnswerError, BadAnswer, ChangeKind, CreateKind, DocumentRef, ImageKind, PlannerFields,
    UpdateKind, UploadKind, Verdict,
};
pub use exchanges::{Core, Misuse};
pub use ffi::export_names;
pub use options::BadOptions;
pub use rules::{BadArguments, rule};
pub use wire::{NAMED, NamedValues};

use napi::bindgen_prelude::{Buffer, Env, External};
use napi::{Error, Status};
use napi_derive::napi;

/// The addon's allocator (the runtime keeps its own for JavaScript).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Owns endpoint number `id` for JavaScript: when the owner is collected,
/// the endpoint goes.
pub struct Owner {
    id: u32,
}

impl Drop for Owner {
    fn drop(&mut self) {
        ffi::remove(self.id);
    }
}

/// An endpoint from its settings (JSON), or an error naming the bad one:
/// its owner, whose number the other exports take.
#[napi(catch_unwind)]
pub fn endpoint(options: String) -> napi::Result<External<Owner>> {
    let core = Core::new(&options)
        .map_err(|BadOptions(message)| Error::new(Status::InvalidArg, message))?;
    let id = ffi::add(core)?;
    Ok(External::new(Owner { id }))
}

/// The number of an endpoint's owner.
#[napi(catch_unwind)]
pub fn endpoint_id(owner: &External<Owner>) -> u32 {
    owner.id
}

/// The endpoint's tools, as a JSON array.
#[napi(catch_unwind)]
pub fn tools(core: u32) -> napi::Result<String> {
    Ok(ffi::with(core, |core| core.tools().to_owned())?)
}

/// The endpoint's body budget in bytes.
#[napi(catch_unwind)]
pub fn budget(core: u32) -> napi::Result<f64> {
    Ok(ffi::with(core, |core| core.budget() as f64)?)
}

/// Protected Resource Metadata for a request, as an outcome string, or
/// `undefined`.
#[napi(catch_unwind)]
pub fn metadata(
    core: u32,
    method: String,
    target: String,
    headers: String,
) -> napi::Result<Option<String>> {
    let out = ffi::with(core, |core| {
        core.metadata(&method, &target, headers.as_bytes())
            .map(|out| String::from_utf8_lossy(out).into_owned())
    })?;
    Ok(out)
}

/// Starts a request to the URL of document `id` in `slot` (headers
/// listed): an outcome string (`src/wire.rs`).
#[napi(catch_unwind)]
pub fn document_start(
    core: u32,
    slot: u32,
    method: String,
    id: String,
    headers: String,
) -> napi::Result<String> {
    let out = ffi::with(core, |core| {
        core.document_start(slot, &method, &id, headers.as_bytes())
            .map(|out| String::from_utf8_lossy(out).into_owned())
    })??;
    Ok(out)
}

/// Answers a document request's authentication: `verdict` as
/// `authenticate`'s, with the scopes of a scoped caller.
#[napi(catch_unwind)]
pub fn document_authenticate(
    core: u32,
    slot: u32,
    verdict: u32,
    scopes: Option<Vec<String>>,
) -> napi::Result<String> {
    let verdict = Verdict::of(verdict)?;
    let out = ffi::with(core, |core| {
        core.document_authenticate(slot, verdict, &scopes.unwrap_or_default())
            .map(|out| String::from_utf8_lossy(out).into_owned())
    })??;
    Ok(out)
}

/// Answers a document request's read: the document's source and revision,
/// or neither (404).
#[napi(catch_unwind)]
pub fn document_answer(
    core: u32,
    slot: u32,
    source: Option<String>,
    revision: Option<f64>,
) -> napi::Result<String> {
    let found = match (source, revision) {
        (Some(source), Some(revision)) => {
            if !(0.0..=9_007_199_254_740_991.0).contains(&revision) || revision.fract() != 0.0 {
                return Err(Error::new(
                    Status::InvalidArg,
                    "a revision: a whole number from 0",
                ));
            }
            Some((source, revision as u64))
        }
        _ => None,
    };
    let out = ffi::with(core, |core| {
        core.document_answer(
            slot,
            found
                .as_ref()
                .map(|(source, revision)| (source.as_str(), *revision)),
        )
        .map(|out| String::from_utf8_lossy(out).into_owned())
    })??;
    Ok(out)
}

/// The bytes of the upload effect in `slot`, which cross apart from the
/// rest of its input.
#[napi(catch_unwind)]
pub fn image_bytes(core: u32, slot: u32) -> napi::Result<Buffer> {
    let bytes = ffi::with(core, |core| core.image_bytes(slot))??;
    Ok(Buffer::from(bytes.to_vec()))
}

/// Answers the upload effect in `slot` by its kind (`UploadKind`'s order).
#[napi(catch_unwind)]
pub fn answer_upload(core: u32, slot: u32, kind: u32) -> napi::Result<String> {
    Ok(ffi::with(core, |core| {
        let kind = UploadKind::of(kind)?;
        core.answer_upload(slot, kind).map(lossless)
    })??)
}

/// Starts a request to `/images/<file>` in `slot`, its headers listed.
#[napi(catch_unwind)]
pub fn image_start(
    core: u32,
    slot: u32,
    method: String,
    file: String,
    headers: String,
) -> napi::Result<String> {
    Ok(ffi::with(core, |core| {
        core.image_start(slot, &method, &file, headers.as_bytes())
            .map(lossless)
    })??)
}

/// Answers an image URL's authentication (`Verdict`'s order; the scopes of
/// a scoped caller).
#[napi(catch_unwind)]
pub fn image_authenticate(
    core: u32,
    slot: u32,
    verdict: u32,
    scopes: Option<Vec<String>>,
) -> napi::Result<String> {
    Ok(ffi::with(core, |core| {
        let verdict = Verdict::of(verdict)?;
        core.image_authenticate(slot, verdict, &scopes.unwrap_or_default())
            .map(lossless)
    })??)
}

/// Answers an image read (`ImageKind`'s order; a found image's media type
/// and bytes).
#[napi(catch_unwind)]
pub fn answer_image(
    core: u32,
    slot: u32,
    kind: u32,
    mime: Option<String>,
    bytes: Option<Buffer>,
) -> napi::Result<String> {
    let found = match (mime, bytes) {
        (Some(mime), Some(bytes)) => Some((mime, bytes::Bytes::copy_from_slice(&bytes))),
        _ => None,
    };
    Ok(ffi::with(core, |core| {
        let kind = ImageKind::of(kind)?;
        let found = found
            .as_ref()
            .map(|(mime, bytes)| (mime.as_str(), bytes.clone()));
        core.answer_image(slot, kind, found).map(lossless)
    })??)
}

/// The bytes of the image response in `slot`; the slot is free again.
#[napi(catch_unwind)]
pub fn image_body(core: u32, slot: u32) -> napi::Result<Buffer> {
    let bytes = ffi::with(core, |core| core.image_body(slot))??;
    Ok(Buffer::from(bytes.to_vec()))
}

/// An outcome as a JavaScript string (outcomes are UTF-8 text).
fn lossless(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// How many exchanges wait for the host (for tests: none is left behind).
#[napi(catch_unwind)]
pub fn in_flight(core: u32) -> napi::Result<u32> {
    Ok(ffi::with(core, |core| core.in_flight() as u32)?)
}

/// Every request header the endpoint reads, in the order `start` takes
/// their values.
#[napi(catch_unwind)]
pub fn named_headers() -> Vec<&'static str> {
    NAMED.to_vec()
}

/// The keep-alive comment an open event stream sends.
#[napi(catch_unwind)]
pub fn keep_alive() -> napi::bindgen_prelude::Uint8Array {
    chopin_mcp::sse::keep_alive().to_vec().into()
}

/// Runs implementation rule `name` (`src/rules.rs`) on its arguments (a
/// JSON array): its result as JSON, or an `InvalidArg` error naming the
/// argument that is not what the rule takes.
#[napi(catch_unwind)]
pub fn implementation_rule(name: String, input: String) -> napi::Result<String> {
    rules::rule(&name, &input)
        .map_err(|BadArguments(message)| Error::new(Status::InvalidArg, message))
}

/// update_document's arguments (a JSON object's text) prepared as the
/// endpoint prepares its update effect's host input (`src/prepare.rs`):
/// `{"input": …}`, `{"issues": […]}` or `null`, as JSON.
#[napi(catch_unwind)]
pub fn prepare_update(arguments: String) -> String {
    prepare::prepared(&arguments)
}

/// Adds the exports a request crosses, plain Node-API callbacks
/// (`src/ffi.rs`).
#[napi(module_exports, catch_unwind)]
pub fn exports(exports: napi::bindgen_prelude::Object<'_>, env: Env) -> napi::Result<()> {
    // SAFETY: the module initialization's environment and exports object.
    use napi::JsValue;
    unsafe { ffi::export(env.raw(), exports.raw()) }
}

#[cfg(test)]
mod tests;
