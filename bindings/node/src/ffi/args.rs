//! The callbacks' argument values: numbers, byte arrays, arrays of
//! strings, revisions, optional strings, and an authentication answer.

use std::borrow::Cow;
use std::ptr;

use napi::sys;

use super::call::{Fault, Value};
use super::scratch;
use super::text::Text;
use crate::Verdict;

/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn u32_of(env: sys::napi_env, value: Value) -> Result<u32, Fault> {
    let mut out = 0;
    // SAFETY: per this function's contract.
    match unsafe { sys::napi_get_value_uint32(env, value, &mut out) } {
        sys::Status::napi_ok => Ok(out),
        _ => Err(Fault::Type("a number")),
    }
}

/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn f64_of(env: sys::napi_env, value: Value) -> Result<f64, Fault> {
    let mut out = 0.0;
    // SAFETY: per this function's contract.
    match unsafe { sys::napi_get_value_double(env, value, &mut out) } {
        sys::Status::napi_ok => Ok(out),
        _ => Err(Fault::Type("a number")),
    }
}

/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn is_undefined(env: sys::napi_env, value: Value) -> bool {
    let mut kind = sys::ValueType::napi_undefined;
    // SAFETY: per this function's contract.
    let status = unsafe { sys::napi_typeof(env, value, &mut kind) };
    status == sys::Status::napi_ok && kind == sys::ValueType::napi_undefined
}

/// The bytes of an `ArrayBuffer` or a `Uint8Array` (a `Buffer` is one),
/// borrowed for the call. The handler passes a body it read whole as an
/// `ArrayBuffer`: Bun makes a fresh typed array's buffer object the first
/// time Node-API asks for its bytes, where an `ArrayBuffer`'s are there.
///
/// # Safety
/// `env` and `value` are a running callback's; the slice must not outlive
/// the callback.
pub(super) unsafe fn bytes_of<'a>(env: sys::napi_env, value: Value) -> Result<&'a [u8], Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        match array_buffer(env, value) {
            Some(bytes) => Ok(bytes),
            None => typed_array(env, value),
        }
    }
}

/// The bytes of an optional byte array ([`bytes_of`]'s), `None` for
/// `undefined`: an `ArrayBuffer`, the body the handler read, is asked for
/// first, in one Node-API call.
///
/// # Safety
/// As [`bytes_of`].
pub(super) unsafe fn optional_bytes<'a>(
    env: sys::napi_env,
    value: Value,
) -> Result<Option<&'a [u8]>, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        if let Some(bytes) = array_buffer(env, value) {
            Ok(Some(bytes))
        } else if is_undefined(env, value) {
            Ok(None)
        } else {
            typed_array(env, value).map(Some)
        }
    }
}

/// The bytes of `value` if it is an `ArrayBuffer`.
///
/// # Safety
/// As [`bytes_of`].
unsafe fn array_buffer<'a>(env: sys::napi_env, value: Value) -> Option<&'a [u8]> {
    let mut length = 0;
    let mut data = ptr::null_mut();
    // SAFETY: per this function's contract; an error for anything but an
    // ArrayBuffer.
    if unsafe { sys::napi_get_arraybuffer_info(env, value, &mut data, &mut length) }
        != sys::Status::napi_ok
    {
        return None;
    }
    if length == 0 || data.is_null() {
        return Some(&[]);
    }
    // SAFETY: Node-API says `data` points at the buffer's `length` bytes,
    // which the argument keeps alive for the call.
    Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) })
}

/// The bytes of `value` if it is a `Uint8Array` (a `Buffer` is one).
///
/// # Safety
/// As [`bytes_of`].
unsafe fn typed_array<'a>(env: sys::napi_env, value: Value) -> Result<&'a [u8], Fault> {
    let mut length = 0;
    let mut data = ptr::null_mut();
    let mut kind = sys::TypedarrayType::int8_array;
    // SAFETY: per this function's contract.
    let status = unsafe {
        sys::napi_get_typedarray_info(
            env,
            value,
            &mut kind,
            &mut length,
            &mut data,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok || kind != sys::TypedarrayType::uint8_array {
        return Err(Fault::Type("an ArrayBuffer or a Uint8Array"));
    }
    if length == 0 || data.is_null() {
        return Ok(&[]);
    }
    // SAFETY: Node-API says `data` points at the array's `length` bytes,
    // which the argument keeps alive for the call.
    Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) })
}

/// An authentication answer: the verdict, the scopes of a scoped caller,
/// the whole body when the host read it (borrowed from an array argument,
/// or copied out of the scratch buffer).
pub(super) struct Answer<'a> {
    pub(super) verdict: Verdict,
    pub(super) scopes: Vec<String>,
    pub(super) body: Option<Cow<'a, [u8]>>,
}

/// An authentication answer's arguments. With a `length` (a number), the
/// body is the first `length` bytes of the thread's scratch buffer
/// (`ffi/scratch.rs`), and `body` is not looked at.
///
/// # Safety
/// `env` and the values are a running callback's; the body must not
/// outlive the callback.
pub(super) unsafe fn answer_of<'a>(
    env: sys::napi_env,
    verdict: Value,
    scopes: Value,
    body: Value,
    length: Value,
) -> Result<Answer<'a>, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        let verdict = Verdict::of(u32_of(env, verdict)?)?;
        // Scopes count for a scoped caller alone: for any other verdict
        // they are not looked at.
        let scopes = if verdict != Verdict::Scoped || is_undefined(env, scopes) {
            Vec::new()
        } else {
            strings_of(env, scopes)?
        };
        let body = match u32_of(env, length) {
            Ok(length) => Some(Cow::Owned(scratch::take(length)?)),
            Err(_) => optional_bytes(env, body)?.map(Cow::Borrowed),
        };
        Ok(Answer {
            verdict,
            scopes,
            body,
        })
    }
}

/// The strings of an array of strings.
///
/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn strings_of(env: sys::napi_env, value: Value) -> Result<Vec<String>, Fault> {
    let mut length = 0;
    // SAFETY: per this function's contract.
    if unsafe { sys::napi_get_array_length(env, value, &mut length) } != sys::Status::napi_ok {
        return Err(Fault::Type("an array of strings"));
    }
    let mut text = Text::new();
    (0..length)
        .map(|index| {
            let mut item = ptr::null_mut();
            // SAFETY: per this function's contract.
            unsafe {
                if sys::napi_get_element(env, value, index, &mut item) != sys::Status::napi_ok {
                    return Err(Fault::Type("an array of strings"));
                }
                text.read(env, item).map(str::to_owned)
            }
        })
        .collect()
}

/// A revision: a whole number from 0 to 2^53 - 1 (the package checks it;
/// this keeps the conversion exact whatever a caller of the addon passes).
///
/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn revision_of(env: sys::napi_env, value: Value) -> Result<u64, Fault> {
    // SAFETY: per this function's contract.
    let revision = unsafe { f64_of(env, value) }?;
    if !(0.0..=9_007_199_254_740_991.0).contains(&revision) || revision.fract() != 0.0 {
        return Err(Fault::Type("a revision: a whole number from 0"));
    }
    Ok(revision as u64)
}

/// A string argument, or `None` for `undefined`.
///
/// # Safety
/// `env` and `value` are a running callback's; the text must not outlive
/// the callback.
pub(super) unsafe fn optional(
    env: sys::napi_env,
    text: &mut Text,
    value: Value,
) -> Result<Option<&str>, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        if is_undefined(env, value) {
            Ok(None)
        } else {
            text.read(env, value).map(Some)
        }
    }
}

/// The id and title of a rename's or restore's answer, when given.
///
/// # Safety
/// `env` and the values are a running callback's; the texts must not
/// outlive the callback.
pub(super) unsafe fn pair(
    env: sys::napi_env,
    texts: &mut (Text, Text),
    id: Value,
    title: Value,
) -> Result<Option<(&str, &str)>, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        match optional(env, &mut texts.0, id)? {
            None => Ok(None),
            Some(id) => Ok(Some((id, texts.1.read(env, title)?))),
        }
    }
}
