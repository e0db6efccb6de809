//! The exports a request crosses (start, authenticate, push, finish, the
//! effects' answers, release) as plain Node-API callbacks.
//!
//! napi-rs's generated wrappers keep borrow scopes for every call with an
//! argument (an `Arc`, thread-local pushes and a mutex): about 1,300 of the
//! 1,500 instructions a one-argument call took (callgrind, Node 20). These
//! callbacks read their arguments with one Node-API call each, into a stack
//! buffer, and write one string back. Each runs inside [`guard`], which
//! catches unwinding as `#[napi(catch_unwind)]` does: an error or a panic
//! becomes a thrown JavaScript exception, never an abort.
//!
//! Endpoints are addressed by a number ([`add`]): the hot calls read no
//! external and dereference no pointer JavaScript handed in. The number's
//! owner is a napi-rs `External` (src/lib.rs) whose finalizer removes it.
//!
//! This file holds the callbacks and the table that exports them; the
//! rooms beside it: the endpoints by number (`ffi/cores.rs`), a call's
//! frame (`ffi/call.rs`: the guard, the arguments, the string back), the
//! arguments' values (`ffi/args.rs`), the strings read into stack
//! buffers (`ffi/text.rs`), and the thread's scratch buffer a small body
//! crosses in (`ffi/scratch.rs`).

mod args;
mod call;
mod cores;
mod scratch;
mod text;

use std::ffi::CStr;
use std::ptr;

use napi::sys;

use crate::wire::{NAMED, NamedValues};
use crate::{
    AnswerError, BadAnswer, ChangeKind, Core, CreateKind, DocumentRef, Misuse, UpdateKind,
};

use args::{
    Answer, answer_of, bytes_of, is_undefined, optional, optional_bytes, pair, revision_of, u32_of,
};
use call::{Fault, Value, args, guard, outcome, string, undefined};
pub(crate) use cores::{add, remove, with};
use scratch::outcome_apart;
use text::{Latin1, Scratch, Text, header_bytes};

// --- The callbacks ----------------------------------------------------------

/// `start(core, slot, method, …values)`: the values of the headers
/// [`NAMED`] names, in its order, each a string or `null` (from Web
/// `Headers`, whose values are byte strings: read as Latin-1, they are the
/// bytes that came).
unsafe extern "C" fn start(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, method, rest @ ..] = args::<{ 3 + NAMED.len() }>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let mut method_text = Text::new();
        let method = method_text.read(env, method)?;
        let mut scratch = Scratch::uninit();
        let mut arena = Latin1::new(&mut scratch);
        let spans = arena.read_all(env, rest, None);
        let values = arena.values(spans);
        outcome(env, core, |core| core.start(slot, method, &values))
    })
}

/// `startListed(core, slot, method, headers)`: every header, listed
/// (`name\0value\0…`).
unsafe extern "C" fn start_listed(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, method, headers] = args::<4>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let mut method_text = Text::new();
        let method = method_text.read(env, method)?;
        let mut headers_text = Text::new();
        let headers = header_bytes(env, headers, &mut headers_text)?;
        outcome(env, core, |core| core.start_listed(slot, method, &headers))
    })
}

/// `authenticate(core, slot, verdict, scopes?, body?, length?)`: with the
/// whole body when the host read it: an `ArrayBuffer` or a `Uint8Array`,
/// or, with `length`, the first `length` bytes of the scratch buffer.
unsafe extern "C" fn authenticate(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, verdict, scopes, body, length] = args::<6>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let Answer {
            verdict,
            scopes,
            body,
        } = answer_of(env, verdict, scopes, body, length)?;
        outcome(env, core, |core| {
            core.authenticate(slot, verdict, &scopes, body.as_deref())
        })
    })
}

/// `run(core, slot, method, …values, verdict, scopes?, body?, present?,
/// length?)`: `start`'s arguments then `authenticate`'s, in one call.
/// `present`, when given, is a number whose bit `i` is set when value `i`
/// is to be read:
/// the others count as none without a Node-API call each (about half of a
/// request's values are absent headers), but where bit [`RUN_SAME`] + `i`
/// is set: value `i` is then the one the last `run` read for its header
/// (see [`crate::wire::Remembered`]). With bit [`RUN_POST`] or [`RUN_GET`]
/// set the method is that one, and not read either; with [`RUN_APART`]
/// the outcome may cross apart (`src/wire.rs`).
unsafe extern "C" fn run(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [
            core,
            slot,
            method,
            n0,
            n1,
            n2,
            n3,
            n4,
            n5,
            n6,
            n7,
            n8,
            n9,
            n10,
            verdict,
            scopes,
            body,
            present,
            length,
        ] = args::<{ 8 + NAMED.len() }>(env, info)?;
        let named = [n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10];
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let present = u32_of(env, present).ok();
        let mut method_text = Text::new();
        let method = match present.unwrap_or(0) {
            bits if bits & RUN_POST != 0 => "POST",
            bits if bits & RUN_GET != 0 => "GET",
            _ => method_text.read(env, method)?,
        };
        let same = present.map_or(0, |bits| (bits >> RUN_SAME) & ((1 << NAMED.len()) - 1));
        let mut scratch = Scratch::uninit();
        let mut arena = Latin1::new(&mut scratch);
        let spans = arena.read_all(env, named, present);
        let values = arena.values(spans);
        let Answer {
            verdict,
            scopes,
            body,
        } = answer_of(env, verdict, scopes, body, length)?;
        let apart = present.is_some_and(|bits| bits & RUN_APART != 0);
        outcome_apart(env, core, apart, |core| {
            let values = NamedValues {
                read: &values,
                same,
            };
            core.start_answered(slot, method, values, verdict, &scopes, body)
        })
    })
}

/// `run`'s `present`: from this bit on, bit `RUN_SAME + i` says value `i`
/// is the one the last `run` read for its header (and is not read).
const RUN_SAME: u32 = 16;
/// `run`'s `present`: the method is `POST` (not read).
const RUN_POST: u32 = 1 << 27;
/// `run`'s `present`: the method is `GET` (not read).
const RUN_GET: u32 = 1 << 28;
/// `run`'s `present`: the outcome may cross apart (`src/wire.rs`).
const RUN_APART: u32 = 1 << 29;
/// `answerRead`'s `present`: the document's id is the one the read asked
/// for (not read).
const READ_OWN_ID: u32 = 1 << 4;
/// `answerRead`'s `present`: the outcome may cross apart (`src/wire.rs`).
const READ_APART: u32 = 1 << 5;

/// `push(core, slot, chunk)`.
unsafe extern "C" fn push(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, chunk] = args::<3>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let chunk = bytes_of(env, chunk)?;
        outcome(env, core, |core| core.push(slot, chunk))
    })
}

/// `finish(core, slot, chunk?)`.
unsafe extern "C" fn finish(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, chunk] = args::<3>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let chunk = optional_bytes(env, chunk)?;
        outcome(env, core, |core| core.finish(slot, chunk))
    })
}

/// `answerList(core, slot, flat)`: `[id, title, …]` as JSON.
unsafe extern "C" fn answer_list(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, flat] = args::<3>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let mut flat_text = Text::new();
        let flat = flat_text.read(env, flat)?;
        outcome(env, core, |core| core.answer_list(slot, flat))
    })
}

/// `answerRead(core, slot, id, title, source, revision, brief?,
/// description?, archivedAt?, url?, present?)`: the brief as JSON.
/// `present`, when given, is a number whose bits 1, 2, 4 and 8 say which
/// of brief, description, archivedAt and url are given: the others are not
/// looked at (without it, each is looked at, `undefined` meaning none).
/// Its bit [`READ_OWN_ID`] says the document's id is the one the read
/// asked for: `id` is not read; [`READ_APART`], that the outcome may cross
/// apart (`src/wire.rs`).
unsafe extern "C" fn answer_read(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [
            core,
            slot,
            id,
            title,
            source,
            revision,
            brief,
            description,
            archived_at,
            url,
            present,
        ] = args::<11>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let (mut id_text, mut title_text, mut source_text) =
            (Text::new(), Text::new(), Text::new());
        let present = u32_of(env, present).ok();
        let id = match present {
            Some(bits) if bits & READ_OWN_ID != 0 => None,
            _ => Some(id_text.read(env, id)?),
        };
        let title = title_text.read(env, title)?;
        let source = source_text.read(env, source)?;
        let revision = revision_of(env, revision)?;
        // Whether optional argument `value` (bit `bit` of `present`) is given.
        let given = |bit: u32, value: Value| match present {
            Some(present) => present & bit != 0,
            None => !is_undefined(env, value),
        };
        let brief = if !given(1, brief) {
            None
        } else {
            let mut brief_text = Text::new();
            let json = brief_text.read(env, brief)?;
            Some(
                serde_json::from_str::<chopin_mcp::Brief>(json)
                    .map_err(|error| Fault::Misuse(format!("a document's brief: {error}")))?,
            )
        };
        let mut extra_texts = (Text::new(), Text::new(), Text::new());
        let found = DocumentRef {
            id,
            title,
            source,
            revision,
            description: given_text(env, &mut extra_texts.0, given(2, description), description)?,
            archived_at: given_text(env, &mut extra_texts.1, given(4, archived_at), archived_at)?,
            url: given_text(env, &mut extra_texts.2, given(8, url), url)?,
        };
        let apart = present.is_some_and(|bits| bits & READ_APART != 0);
        outcome_apart(env, core, apart, |core| {
            core.answer_found(slot, found, brief)
        })
    })
}

/// The text of `value` when `given`, else `None`.
///
/// # Safety
/// `env` and `value` are a running callback's; the text must not outlive
/// the callback.
unsafe fn given_text(
    env: sys::napi_env,
    text: &mut Text,
    given: bool,
    value: Value,
) -> Result<Option<&str>, Fault> {
    if given {
        // SAFETY: per this function's contract.
        unsafe { text.read(env, value) }.map(Some)
    } else {
        Ok(None)
    }
}

/// `answerAbsent(core, slot)`: no such document for this caller.
unsafe extern "C" fn answer_absent(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot] = args::<2>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        outcome(env, core, |core| core.answer_absent(slot))
    })
}

/// `answerCreate(core, slot, kind, fields?, source?)`: the document but its
/// source as JSON, and its source unless it is the canonical plan.
unsafe extern "C" fn answer_create(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, kind, fields, source] = args::<5>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = CreateKind::of(u32_of(env, kind)?)?;
        let (mut fields_text, mut source_text) = (Text::new(), Text::new());
        let fields = optional(env, &mut fields_text, fields)?;
        let source = optional(env, &mut source_text, source)?;
        outcome(env, core, |core| {
            core.answer_create(slot, kind, fields, source)
        })
    })
}

/// `answerListForbidden(core, slot)`: the caller may not list the
/// repository.
unsafe extern "C" fn forbid_list(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot] = args::<2>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        outcome(env, core, |core| core.answer_list_forbidden(slot))
    })
}

/// `answerUpdate(core, slot, kind, fields?, source?, current?)`: as
/// `answerCreate`, and the current revision of a revision conflict.
unsafe extern "C" fn answer_update(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, kind, fields, source, current] = args::<6>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = UpdateKind::of(u32_of(env, kind)?)?;
        let (mut fields_text, mut source_text) = (Text::new(), Text::new());
        let fields = optional(env, &mut fields_text, fields)?;
        let source = optional(env, &mut source_text, source)?;
        let current = if kind == UpdateKind::RevisionConflict {
            revision_of(env, current)?
        } else {
            0
        };
        outcome(env, core, |core| {
            core.answer_update(slot, kind, fields, source, current)
        })
    })
}

/// [`Core::answer_rename`] or [`Core::answer_restore`].
type SummaryAnswer = for<'c, 't> fn(
    &'c mut Core,
    u32,
    ChangeKind,
    Option<(&'t str, &'t str, Option<&'t str>)>,
) -> Result<&'c [u8], Misuse>;

/// A rename's or restore's answer, `(core, slot, kind, id?, title?,
/// description?)`, given to `answer`.
///
/// # Safety
/// `env` and `info` are a running callback's.
unsafe fn answer_summary(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    answer: SummaryAnswer,
) -> Result<Value, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        let [core, slot, kind, id, title, description] = args::<6>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = ChangeKind::of(u32_of(env, kind)?)?;
        let mut texts = (Text::new(), Text::new());
        let mut description_text = Text::new();
        let document = match pair(env, &mut texts, id, title)? {
            Some((id, title)) => Some((
                id,
                title,
                optional(env, &mut description_text, description)?,
            )),
            None => None,
        };
        outcome(env, core, |core| answer(core, slot, kind, document))
    }
}

/// `answerRename(core, slot, kind, id?, title?, description?)`.
unsafe extern "C" fn answer_rename(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        answer_summary(env, info, Core::answer_rename)
    })
}

/// `answerInvoke(core, slot, code, id?, title?, url?, description?)`: code
/// 0 is invoked, with the document; 1 to 7 a refusal
/// ([`Core::answer_invoke`]).
unsafe extern "C" fn answer_invoke(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, code, id, title, url, description] = args::<7>(env, info)?;
        let (core, slot, code) = (u32_of(env, core)?, u32_of(env, slot)?, u32_of(env, code)?);
        let mut texts = (Text::new(), Text::new());
        let (mut url_text, mut description_text) = (Text::new(), Text::new());
        let document = match pair(env, &mut texts, id, title)? {
            Some((id, title)) => Some((
                id,
                title,
                url_text.read(env, url)?,
                optional(env, &mut description_text, description)?,
            )),
            None => None,
        };
        outcome(env, core, |core| core.answer_invoke(slot, code, document))
    })
}

/// `answerArchive(core, slot, kind, id?, title?, archivedAt?,
/// description?)`.
unsafe extern "C" fn answer_archive(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, kind, id, title, archived_at, description] = args::<7>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = ChangeKind::of(u32_of(env, kind)?)?;
        let mut texts = (Text::new(), Text::new());
        let (mut at_text, mut description_text) = (Text::new(), Text::new());
        let document = match pair(env, &mut texts, id, title)? {
            Some((id, title)) => {
                let description = optional(env, &mut description_text, description)?;
                Some(((id, title, description), at_text.read(env, archived_at)?))
            }
            None => None,
        };
        outcome(env, core, |core| core.answer_archive(slot, kind, document))
    })
}

/// `answerRestore(core, slot, kind, id?, title?, description?)`.
unsafe extern "C" fn answer_restore(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        answer_summary(env, info, Core::answer_restore)
    })
}

/// `answerImplementation(core, slot, answer)`: the host's answer to the
/// implementation effect in the slot, as JSON; a malformed one throws a
/// `TypeError` and leaves the effect waiting.
unsafe extern "C" fn answer_impl(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, answer] = args::<3>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let mut answer_text = Text::new();
        let answer = answer_text.read(env, answer)?;
        with(core, |core| {
            match core.answer_implementation(slot, answer) {
                Ok(out) => string(env, out),
                Err(AnswerError::Bad(BadAnswer(message))) => Err(Fault::Invalid(message)),
                Err(AnswerError::Misuse(misuse)) => Err(Fault::from(misuse)),
            }
        })?
    })
}

/// `plan(core, slot)`: the plan of the create or update effect in the
/// slot, which crosses apart from the rest of its input.
unsafe extern "C" fn plan(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot] = args::<2>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        outcome(env, core, |core| core.plan(slot))
    })
}

/// `body(core, slot)`: the body of the response in the slot whose outcome
/// (`P`) carried its head alone, made from the response's own bytes; the
/// slot is free again.
unsafe extern "C" fn body(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot] = args::<2>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        with(core, |core| {
            let response = core.body(slot)?;
            string(env, response.body())
        })?
    })
}

/// `scratch()`: the thread's scratch buffer (an `ArrayBuffer` over the
/// addon's memory; `undefined` where the engine takes none), into which
/// the handler copies a small body for `run` and `authenticate`.
unsafe extern "C" fn scratch_buffer(env: sys::napi_env, _info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe { scratch::buffer(env) })
}

/// `release(core, slot)`: drops the exchange in the slot.
unsafe extern "C" fn release(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot] = args::<2>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        with(core, |core| core.release(slot))?;
        Ok(undefined(env))
    })
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> Value;

/// The callbacks, by their JavaScript names.
const EXPORTS: [(&CStr, Callback); 21] = [
    (c"start", start),
    (c"run", run),
    (c"startListed", start_listed),
    (c"authenticate", authenticate),
    (c"push", push),
    (c"finish", finish),
    (c"answerList", answer_list),
    (c"answerRead", answer_read),
    (c"answerAbsent", answer_absent),
    (c"answerCreate", answer_create),
    (c"answerListForbidden", forbid_list),
    (c"answerUpdate", answer_update),
    (c"answerRename", answer_rename),
    (c"answerArchive", answer_archive),
    (c"answerRestore", answer_restore),
    (c"answerInvoke", answer_invoke),
    (c"answerImplementation", answer_impl),
    (c"plan", plan),
    (c"body", body),
    (c"release", release),
    (c"scratch", scratch_buffer),
];

/// The names of the plain Node-API exports (for the tests).
pub fn export_names() -> impl Iterator<Item = &'static str> {
    EXPORTS
        .iter()
        .map(|(name, _)| name.to_str().unwrap_or_default())
}

/// Adds the callbacks to the module's exports.
///
/// # Safety
/// `env` and `exports` are the module initialization's.
pub(crate) unsafe fn export(env: sys::napi_env, exports: Value) -> napi::Result<()> {
    for (name, callback) in EXPORTS {
        let mut function = ptr::null_mut();
        // SAFETY: per this function's contract; the name is NUL-terminated.
        let status = unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr(),
                name.count_bytes() as isize,
                Some(callback),
                ptr::null_mut(),
                &mut function,
            )
        };
        if status == sys::Status::napi_ok {
            // SAFETY: as above.
            unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), function) };
        } else {
            return Err(napi::Error::from_reason(format!(
                "cannot export {}",
                name.to_string_lossy()
            )));
        }
    }
    Ok(())
}
