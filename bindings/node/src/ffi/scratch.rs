//! The thread's scratch buffer: memory the addon keeps, which JavaScript
//! sees as an `ArrayBuffer` ([`buffer`]) and copies a small request body
//! into, so that `run` and `authenticate` take the body by its length
//! alone ([`take`]), a number, where an array argument costs Bun a handle
//! and a Node-API call to read (and a fresh `Uint8Array` a copy into a
//! buffer made for it). Its last [`REGISTER`] bytes are where an outcome's
//! tag goes when it comes apart from the string ([`outcome_apart`],
//! [`mark`]).
//!
//! The memory is the addon's, never the engine's, and is never freed (16
//! KiB a thread that ever asked for it): JavaScript may transfer a view of
//! it away, even to another thread, and write through it there after this
//! thread has ended. The addon never makes a reference to it: a body is
//! copied out of it through the pointer ([`take`]), so what the endpoint
//! reads is its own copy whatever writes the memory meanwhile.

use std::cell::OnceCell;
use std::ffi::c_void;
use std::ptr;

use napi::sys;

use super::call::{Fault, Value, string};
use super::cores::with;
use crate::wire;
use crate::{Core, Misuse};

/// The scratch buffer's size for a body: a larger one crosses as an array.
const SIZE: usize = 16 * 1024;
/// The register after the body's bytes: an outcome's tag, then the id of
/// its response head (the rest kept for alignment).
const REGISTER: usize = 8;
/// The memory's size.
const TOTAL: usize = SIZE + REGISTER;

/// [`TOTAL`] bytes, held by a raw pointer (JavaScript writes them, which
/// no Rust reference may be alive to see), never freed.
struct Memory(*mut u8);

impl Memory {
    fn new() -> Memory {
        Memory(Box::into_raw(vec![0u8; TOTAL].into_boxed_slice()).cast::<u8>())
    }
}

thread_local! {
    /// This thread's scratch memory, made on the first `scratch()` (every
    /// JavaScript environment runs on a thread of its own).
    static MEMORY: OnceCell<Memory> = const { OnceCell::new() };
}

/// An `ArrayBuffer` over the thread's scratch memory (made on the first
/// call); `undefined` where the engine takes no external buffers (the
/// handler then passes every body as an array).
///
/// # Safety
/// `env` is a running callback's.
pub(super) unsafe fn buffer(env: sys::napi_env) -> Result<Value, Fault> {
    let data = MEMORY.with(|memory| memory.get_or_init(Memory::new).0);
    let mut out = ptr::null_mut();
    // SAFETY: the memory is never freed, so it outlives any buffer over
    // it; there is no finalizer.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            env,
            data.cast::<c_void>(),
            TOTAL,
            None,
            ptr::null_mut(),
            &mut out,
        )
    };
    if status == sys::Status::napi_ok {
        Ok(out)
    } else {
        // SAFETY: per this function's contract.
        Ok(unsafe { super::call::undefined(env) })
    }
}

/// A copy of the first `length` bytes of the thread's scratch memory, as
/// JavaScript last wrote them.
pub(super) fn take(length: u32) -> Result<Vec<u8>, Fault> {
    let length = length as usize;
    MEMORY.with(|memory| match memory.get() {
        Some(memory) if length <= SIZE => {
            let mut copy = Vec::with_capacity(length);
            // SAFETY: the memory's first SIZE bytes are valid for reads
            // (never freed), the copy has room for `length`, and the two do
            // not overlap; the bytes are initialized by then.
            unsafe {
                ptr::copy_nonoverlapping(memory.0, copy.as_mut_ptr(), length);
                copy.set_len(length);
            }
            Ok(copy)
        }
        None if length == 0 => Ok(Vec::new()),
        _ => Err(Fault::Type("a body length within the scratch buffer")),
    })
}

/// Writes an outcome's `tag` and its response head's id `head` into the
/// register; false where there is no scratch memory (no `scratch()` yet:
/// JavaScript reads no register then).
pub(super) fn mark(tag: u8, head: u8) -> bool {
    MEMORY.with(|memory| match memory.get() {
        Some(memory) => {
            // SAFETY: SIZE + 1 < TOTAL; JavaScript reads the register only
            // between calls.
            unsafe {
                memory.0.add(SIZE).write(tag);
                memory.0.add(SIZE + 1).write(head);
            }
            true
        }
        None => false,
    })
}

/// [`outcome`](super::call::outcome), with `apart` apart where it can be
/// (`src/wire.rs`, **Apart**): a read effect's id or a known head's body
/// alone, its tag and head id in the register; any other outcome whole,
/// the register's tag 0.
///
/// # Safety
/// `env` is a running callback's.
pub(super) unsafe fn outcome_apart(
    env: sys::napi_env,
    core: u32,
    apart: bool,
    step: impl FnOnce(&mut Core) -> Result<&[u8], Misuse>,
) -> Result<Value, Fault> {
    with(core, |core| match step(core) {
        Ok(out) => {
            let text = if !apart {
                out
            } else {
                match wire::apart(out) {
                    Some((tag, head, payload)) if mark(tag, head) => payload,
                    _ => {
                        mark(0, 0);
                        out
                    }
                }
            };
            // SAFETY: per this function's contract.
            unsafe { string(env, text) }
        }
        Err(misuse) => Err(Fault::from(misuse)),
    })?
}
