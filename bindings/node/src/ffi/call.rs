//! A callback's frame: [`guard`], which turns an error or a panic into a
//! thrown exception; the arguments; and the string or `undefined` it
//! returns.

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use napi::sys;

use super::cores::with;
use crate::{Core, Misuse};

/// Why a call throws.
pub(super) enum Fault {
    /// An argument of the wrong type: a `TypeError`.
    Type(&'static str),
    /// A malformed host answer, its message whole: a `TypeError`.
    Invalid(String),
    /// A call the addon cannot act on: an `Error`.
    Misuse(String),
}

impl From<Misuse> for Fault {
    fn from(Misuse(message): Misuse) -> Self {
        Fault::Misuse(message)
    }
}

pub(super) type Value = sys::napi_value;

/// Runs a callback's body, turning an error or a panic into a thrown
/// exception (and the return value into `undefined`).
pub(super) fn guard(env: sys::napi_env, body: impl FnOnce() -> Result<Value, Fault>) -> Value {
    let fault = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => return value,
        Ok(Err(fault)) => fault,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Fault::Misuse(format!("chopin-mcp: a panic in the addon: {what}"))
        }
    };
    let (type_error, message) = match fault {
        Fault::Type(what) => (true, format!("chopin-mcp: expected {what}")),
        Fault::Invalid(message) => (true, message),
        Fault::Misuse(message) => (false, message),
    };
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `env` is the callback's; the message is NUL-terminated and
    // outlives the call (Node-API copies it).
    unsafe {
        if type_error {
            sys::napi_throw_type_error(env, ptr::null(), message.as_ptr());
        } else {
            sys::napi_throw_error(env, ptr::null(), message.as_ptr());
        }
    }
    ptr::null_mut()
}

/// The first `N` arguments (missing ones are `undefined`).
///
/// # Safety
/// `env` and `info` are a running callback's.
pub(super) unsafe fn args<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Result<[Value; N], Fault> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    // SAFETY: argv has room for argc values.
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok {
        return Err(Fault::Misuse(
            "chopin-mcp: cannot read the arguments".into(),
        ));
    }
    Ok(argv)
}

/// A JavaScript string of UTF-8 `bytes`.
///
/// # Safety
/// `env` is a running callback's.
pub(super) unsafe fn string(env: sys::napi_env, bytes: &[u8]) -> Result<Value, Fault> {
    let mut out = ptr::null_mut();
    // SAFETY: the bytes are valid for their length; Node-API copies them.
    let status = unsafe {
        sys::napi_create_string_utf8(
            env,
            bytes.as_ptr().cast::<c_char>(),
            bytes.len() as isize,
            &mut out,
        )
    };
    match status {
        sys::Status::napi_ok => Ok(out),
        _ => Err(Fault::Misuse("chopin-mcp: cannot make a string".into())),
    }
}

/// `undefined`.
///
/// # Safety
/// `env` is a running callback's.
pub(super) unsafe fn undefined(env: sys::napi_env) -> Value {
    let mut out = ptr::null_mut();
    // SAFETY: per this function's contract.
    unsafe { sys::napi_get_undefined(env, &mut out) };
    out
}

/// Runs `step` on endpoint `core` and returns its outcome as a string.
///
/// # Safety
/// `env` is a running callback's.
pub(super) unsafe fn outcome(
    env: sys::napi_env,
    core: u32,
    step: impl FnOnce(&mut Core) -> Result<&[u8], Misuse>,
) -> Result<Value, Fault> {
    with(core, |core| match step(core) {
        // SAFETY: per this function's contract.
        Ok(out) => unsafe { string(env, out) },
        Err(misuse) => Err(Fault::from(misuse)),
    })?
}
