//! Strings read from JavaScript without an allocation when they fit: a
//! UTF-8 argument in a stack buffer ([`Text`]), a header string's bytes,
//! and the named headers' values read as Latin-1 into one shared stack
//! buffer ([`Latin1`]).

use std::borrow::Cow;
use std::ffi::c_char;
use std::mem::MaybeUninit;
use std::ptr;

use napi::sys;

use super::call::{Fault, Value};
use crate::wire::NAMED;

/// A string argument as UTF-8: in a stack buffer when it fits, else on the
/// heap.
pub(super) struct Text {
    /// Never read before Node-API wrote it: left uninitialized (an array
    /// of `MaybeUninit<u8>` was zeroed by a `memset` all the same).
    stack: MaybeUninit<[u8; 1024]>,
    heap: Vec<u8>,
}

impl Text {
    pub(super) fn new() -> Text {
        Text {
            stack: MaybeUninit::uninit(),
            heap: Vec::new(),
        }
    }

    /// The string's UTF-8 bytes, as Node-API writes them.
    ///
    /// # Safety
    /// `env` and `value` are a running callback's.
    pub(super) unsafe fn bytes(
        &mut self,
        env: sys::napi_env,
        value: Value,
    ) -> Result<&[u8], Fault> {
        let mut written = 0;
        let room = size_of_val(&self.stack);
        // SAFETY: the buffer has room for its length (Node-API writes at
        // most bufsize - 1 bytes and a NUL).
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                env,
                value,
                self.stack.as_mut_ptr().cast::<c_char>(),
                room,
                &mut written,
            )
        };
        if status != sys::Status::napi_ok {
            return Err(Fault::Type("a string"));
        }
        // Short of the end by more than a character: the whole string.
        if written + 4 < room {
            // SAFETY: Node-API initialized the first `written` bytes.
            return Ok(unsafe {
                std::slice::from_raw_parts(self.stack.as_ptr().cast::<u8>(), written)
            });
        }
        let mut length = 0;
        // SAFETY: a null buffer asks for the length.
        unsafe {
            sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut length);
        }
        self.heap = vec![0; length + 1];
        // SAFETY: as above, with a buffer of length + 1.
        unsafe {
            sys::napi_get_value_string_utf8(
                env,
                value,
                self.heap.as_mut_ptr().cast::<c_char>(),
                self.heap.len(),
                &mut written,
            );
        }
        Ok(&self.heap[..written.min(length)])
    }

    /// The string as Rust text.
    ///
    /// # Safety
    /// `env` and `value` are a running callback's.
    pub(super) unsafe fn read(&mut self, env: sys::napi_env, value: Value) -> Result<&str, Fault> {
        // SAFETY: per this function's contract.
        let bytes = unsafe { self.bytes(env, value) }?;
        // Node-API writes UTF-8; checked all the same, as the engine is not ours.
        std::str::from_utf8(bytes).map_err(|_| Fault::Type("a string of Unicode text"))
    }
}

/// The bytes of a header string: Latin-1 when every character is one
/// (Node gives header lines so, byte for byte), else its UTF-8 (a host
/// that decoded them as UTF-8 gets them back). An ASCII string, the usual
/// one, is read once into `text` and borrowed from it.
///
/// # Safety
/// `env` and `value` are a running callback's.
pub(super) unsafe fn header_bytes<'t>(
    env: sys::napi_env,
    value: Value,
    text: &'t mut Text,
) -> Result<Cow<'t, [u8]>, Fault> {
    let mut length = 0;
    // SAFETY: a null buffer asks for the length in UTF-16 units.
    let status =
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut length) };
    if status != sys::Status::napi_ok {
        return Err(Fault::Type("a string"));
    }
    // Every character takes at least as many UTF-8 bytes as UTF-16 units,
    // and as many only when it is ASCII: then its UTF-8 is its Latin-1.
    // SAFETY: per this function's contract.
    let utf8 = unsafe { text.bytes(env, value) }?;
    if utf8.len() == length {
        return Ok(Cow::Borrowed(utf8));
    }
    let mut units = vec![0u16; length + 1];
    let mut written = 0;
    // SAFETY: the buffer has room for length + 1 units.
    unsafe {
        sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), units.len(), &mut written);
    }
    units.truncate(written.min(length));
    if units.iter().all(|&unit| unit <= 0xFF) {
        Ok(Cow::Owned(
            units.into_iter().map(|unit| unit as u8).collect(),
        ))
    } else {
        Ok(Cow::Owned(String::from_utf16_lossy(&units).into_bytes()))
    }
}

/// The stack buffer a [`Latin1`] reads into.
pub(super) type Scratch = MaybeUninit<[u8; 4096]>;

/// Byte strings read as Latin-1 into one stack buffer (a value too long
/// for what is left of it goes to the heap).
///
/// The buffer is the caller's local, borrowed: held in the struct, it was
/// zeroed whole at every `start` and `run` (a 4,104-byte `memset`, with
/// `used`'s zero beside it; 2.5 % of a `run` and `answerRead` loop on Bun
/// under perf).
pub(super) struct Latin1<'s> {
    /// Initialized up to `used` (see [`Text`] for why not an array).
    stack: &'s mut Scratch,
    used: usize,
    spilled: Vec<Vec<u8>>,
}

/// Where [`Latin1::read`] put a value.
#[derive(Clone, Copy)]
pub(super) enum Span {
    Stack(usize, usize),
    Spilled(usize),
}

impl<'s> Latin1<'s> {
    pub(super) fn new(stack: &'s mut Scratch) -> Latin1<'s> {
        Latin1 {
            stack,
            used: 0,
            spilled: Vec::new(),
        }
    }

    /// Reads `value` if it is a string; `None` for anything else (`null`).
    ///
    /// # Safety
    /// `env` and `value` are a running callback's.
    unsafe fn read(&mut self, env: sys::napi_env, value: Value) -> Option<Span> {
        let start = self.used;
        let room = size_of_val(self.stack) - start;
        let mut written = 0;
        // SAFETY: the buffer from `start` has `room` bytes.
        let status = unsafe {
            sys::napi_get_value_string_latin1(
                env,
                value,
                self.stack.as_mut_ptr().cast::<c_char>().add(start),
                room,
                &mut written,
            )
        };
        if status != sys::Status::napi_ok {
            return None;
        }
        if written + 1 < room {
            self.used = start + written;
            return Some(Span::Stack(start, start + written));
        }
        let mut length = 0;
        // SAFETY: a null buffer asks for the length.
        unsafe { sys::napi_get_value_string_latin1(env, value, ptr::null_mut(), 0, &mut length) };
        let mut heap = vec![0u8; length + 1];
        // SAFETY: the buffer has room for length + 1 bytes.
        unsafe {
            sys::napi_get_value_string_latin1(
                env,
                value,
                heap.as_mut_ptr().cast::<c_char>(),
                heap.len(),
                &mut written,
            );
        }
        heap.truncate(written.min(length));
        self.spilled.push(heap);
        Some(Span::Spilled(self.spilled.len() - 1))
    }

    /// Reads the values of the headers [`NAMED`] names: with `present`,
    /// only those whose bit is set in it (bit `i` for value `i`), each of
    /// the others none without a Node-API call.
    ///
    /// # Safety
    /// `env` and the values are a running callback's.
    pub(super) unsafe fn read_all(
        &mut self,
        env: sys::napi_env,
        values: [Value; NAMED.len()],
        present: Option<u32>,
    ) -> [Option<Span>; NAMED.len()] {
        // None to read (every value absent or remembered): the usual request.
        if present.is_some_and(|present| present & ((1 << NAMED.len()) - 1) == 0) {
            return [None; NAMED.len()];
        }
        let mut bit = 1u32;
        values.map(|value| {
            let wanted = present.is_none_or(|present| present & bit != 0);
            bit <<= 1;
            // SAFETY: per this function's contract.
            wanted.then(|| unsafe { self.read(env, value) }).flatten()
        })
    }

    /// The values [`read_all`](Self::read_all) read.
    pub(super) fn values(
        &self,
        spans: [Option<Span>; NAMED.len()],
    ) -> [Option<&[u8]>; NAMED.len()] {
        spans.map(|span| span.map(|span| self.get(span)))
    }

    fn get(&self, span: Span) -> &[u8] {
        match span {
            // SAFETY: Node-API initialized the bytes up to `used`, which
            // covers every stack span.
            Span::Stack(start, end) => unsafe {
                std::slice::from_raw_parts(self.stack.as_ptr().cast::<u8>().add(start), end - start)
            },
            Span::Spilled(index) => &self.spilled[index],
        }
    }
}
