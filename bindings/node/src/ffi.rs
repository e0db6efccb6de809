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

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::mem::MaybeUninit;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use napi::sys;

use crate::wire::NAMED;
use crate::{ChangeKind, Core, CreateKind, DocumentRef, Misuse, UpdateKind, Verdict};

// --- Endpoints by number --------------------------------------------------

thread_local! {
    /// The endpoints of this thread's JavaScript environment (a worker has
    /// its own).
    static CORES: RefCell<Cores> = RefCell::new(Cores::default());
}

#[derive(Default)]
struct Cores {
    /// Each entry's generation (bumped when it is freed) and endpoint.
    entries: Vec<(u16, Option<Core>)>,
    free: Vec<u16>,
}

/// Keeps `core`; its number is its index and the index's generation, so a
/// stale number never reaches a later endpoint.
pub(crate) fn add(core: Core) -> Result<u32, Misuse> {
    CORES.with(|cores| {
        let mut cores = cores.borrow_mut();
        let index = match cores.free.pop() {
            Some(index) => index,
            None => {
                let index = u16::try_from(cores.entries.len())
                    .map_err(|_| Misuse("too many endpoints in one thread".into()))?;
                cores.entries.push((0, None));
                index
            }
        };
        let entry = &mut cores.entries[usize::from(index)];
        entry.1 = Some(core);
        Ok(u32::from(entry.0) << 16 | u32::from(index))
    })
}

/// Drops endpoint `id` (its owner was collected).
pub(crate) fn remove(id: u32) {
    // During the thread's teardown the table may be gone already.
    let _ = CORES.try_with(|cores| {
        let mut cores = cores.borrow_mut();
        let index = (id & 0xFFFF) as u16;
        if let Some(entry) = cores.entries.get_mut(usize::from(index))
            && u32::from(entry.0) == id >> 16
            && entry.1.is_some()
        {
            entry.1 = None;
            entry.0 = entry.0.wrapping_add(1);
            cores.free.push(index);
        }
    });
}

/// Runs `f` on endpoint `id`.
pub(crate) fn with<R>(id: u32, f: impl FnOnce(&mut Core) -> R) -> Result<R, Misuse> {
    CORES.with(|cores| {
        let mut cores = cores.borrow_mut();
        match cores.entries.get_mut((id & 0xFFFF) as usize) {
            Some((generation, Some(core))) if u32::from(*generation) == id >> 16 => Ok(f(core)),
            _ => Err(Misuse(format!("endpoint {id} is gone"))),
        }
    })
}

// --- Calls ------------------------------------------------------------------

/// Why a call throws.
enum Fault {
    /// An argument of the wrong type: a `TypeError`.
    Type(&'static str),
    /// A call the addon cannot act on: an `Error`.
    Misuse(String),
}

impl From<Misuse> for Fault {
    fn from(Misuse(message): Misuse) -> Self {
        Fault::Misuse(message)
    }
}

type Value = sys::napi_value;

/// Runs a callback's body, turning an error or a panic into a thrown
/// exception (and the return value into `undefined`).
fn guard(env: sys::napi_env, body: impl FnOnce() -> Result<Value, Fault>) -> Value {
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
unsafe fn args<const N: usize>(
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

/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn u32_of(env: sys::napi_env, value: Value) -> Result<u32, Fault> {
    let mut out = 0;
    // SAFETY: per this function's contract.
    match unsafe { sys::napi_get_value_uint32(env, value, &mut out) } {
        sys::Status::napi_ok => Ok(out),
        _ => Err(Fault::Type("a number")),
    }
}

/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn f64_of(env: sys::napi_env, value: Value) -> Result<f64, Fault> {
    let mut out = 0.0;
    // SAFETY: per this function's contract.
    match unsafe { sys::napi_get_value_double(env, value, &mut out) } {
        sys::Status::napi_ok => Ok(out),
        _ => Err(Fault::Type("a number")),
    }
}

/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn is_undefined(env: sys::napi_env, value: Value) -> bool {
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
unsafe fn bytes_of<'a>(env: sys::napi_env, value: Value) -> Result<&'a [u8], Fault> {
    let mut length = 0;
    let mut data = ptr::null_mut();
    // SAFETY: per this function's contract; an error for anything but an
    // ArrayBuffer.
    if unsafe { sys::napi_get_arraybuffer_info(env, value, &mut data, &mut length) }
        == sys::Status::napi_ok
    {
        if length == 0 || data.is_null() {
            return Ok(&[]);
        }
        // SAFETY: Node-API says `data` points at the buffer's `length`
        // bytes, which the argument keeps alive for the call.
        return Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) });
    }
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

/// A string argument as UTF-8: in a stack buffer when it fits, else on the
/// heap.
struct Text {
    /// Never read before Node-API wrote it: left uninitialized (an array
    /// of `MaybeUninit<u8>` was zeroed by a `memset` all the same).
    stack: MaybeUninit<[u8; 1024]>,
    heap: Vec<u8>,
}

impl Text {
    fn new() -> Text {
        Text {
            stack: MaybeUninit::uninit(),
            heap: Vec::new(),
        }
    }

    /// The string's UTF-8 bytes, as Node-API writes them.
    ///
    /// # Safety
    /// `env` and `value` are a running callback's.
    unsafe fn bytes(&mut self, env: sys::napi_env, value: Value) -> Result<&[u8], Fault> {
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
    unsafe fn read(&mut self, env: sys::napi_env, value: Value) -> Result<&str, Fault> {
        // SAFETY: per this function's contract.
        let bytes = unsafe { self.bytes(env, value) }?;
        // Node-API writes UTF-8; checked all the same, as the engine is not ours.
        std::str::from_utf8(bytes).map_err(|_| Fault::Type("a string of Unicode text"))
    }
}

/// A JavaScript string of UTF-8 `bytes`.
///
/// # Safety
/// `env` is a running callback's.
unsafe fn string(env: sys::napi_env, bytes: &[u8]) -> Result<Value, Fault> {
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
unsafe fn undefined(env: sys::napi_env) -> Value {
    let mut out = ptr::null_mut();
    // SAFETY: per this function's contract.
    unsafe { sys::napi_get_undefined(env, &mut out) };
    out
}

/// Runs `step` on endpoint `core` and returns its outcome as a string.
///
/// # Safety
/// `env` is a running callback's.
unsafe fn outcome(
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
        let spans = arena.read_all(env, rest);
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

/// The bytes of a header string: Latin-1 when every character is one
/// (Node gives header lines so, byte for byte), else its UTF-8 (a host
/// that decoded them as UTF-8 gets them back). An ASCII string, the usual
/// one, is read once into `text` and borrowed from it.
///
/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn header_bytes<'t>(
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
type Scratch = MaybeUninit<[u8; 4096]>;

/// Byte strings read as Latin-1 into one stack buffer (a value too long
/// for what is left of it goes to the heap).
///
/// The buffer is the caller's local, borrowed: held in the struct, it was
/// zeroed whole at every `start` and `run` (a 4,104-byte `memset`, with
/// `used`'s zero beside it; 2.5 % of a `run` and `answerRead` loop on Bun
/// under perf).
struct Latin1<'s> {
    /// Initialized up to `used` (see [`Text`] for why not an array).
    stack: &'s mut Scratch,
    used: usize,
    spilled: Vec<Vec<u8>>,
}

/// Where [`Latin1::read`] put a value.
#[derive(Clone, Copy)]
enum Span {
    Stack(usize, usize),
    Spilled(usize),
}

impl<'s> Latin1<'s> {
    fn new(stack: &'s mut Scratch) -> Latin1<'s> {
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

    /// Reads the values of the headers [`NAMED`] names.
    ///
    /// # Safety
    /// `env` and the values are a running callback's.
    unsafe fn read_all(
        &mut self,
        env: sys::napi_env,
        values: [Value; NAMED.len()],
    ) -> [Option<Span>; NAMED.len()] {
        // SAFETY: per this function's contract.
        values.map(|value| unsafe { self.read(env, value) })
    }

    /// The values [`read_all`](Self::read_all) read.
    fn values(&self, spans: [Option<Span>; NAMED.len()]) -> [Option<&[u8]>; NAMED.len()] {
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

/// `authenticate(core, slot, verdict, scopes?, body?)`: with the whole body
/// (an `ArrayBuffer` or a `Uint8Array`) when the host read it.
unsafe extern "C" fn authenticate(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, verdict, scopes, body] = args::<5>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let Answer {
            verdict,
            scopes,
            body,
        } = answer_of(env, verdict, scopes, body)?;
        outcome(env, core, |core| {
            core.authenticate(slot, verdict, &scopes, body)
        })
    })
}

/// An authentication answer: the verdict, the scopes of a scoped caller,
/// the whole body when the host read it.
struct Answer<'a> {
    verdict: Verdict,
    scopes: Vec<String>,
    body: Option<&'a [u8]>,
}

/// An authentication answer's arguments.
///
/// # Safety
/// `env` and the values are a running callback's; the body must not
/// outlive the callback.
unsafe fn answer_of<'a>(
    env: sys::napi_env,
    verdict: Value,
    scopes: Value,
    body: Value,
) -> Result<Answer<'a>, Fault> {
    // SAFETY: per this function's contract.
    unsafe {
        let verdict = Verdict::of(u32_of(env, verdict)?)?;
        let scopes = if is_undefined(env, scopes) {
            Vec::new()
        } else {
            strings_of(env, scopes)?
        };
        let body = if is_undefined(env, body) {
            None
        } else {
            Some(bytes_of(env, body)?)
        };
        Ok(Answer {
            verdict,
            scopes,
            body,
        })
    }
}

/// `run(core, slot, method, …values, verdict, scopes?, body?)`: `start`'s
/// arguments then `authenticate`'s, in one call.
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
            verdict,
            scopes,
            body,
        ] = args::<{ 6 + NAMED.len() }>(env, info)?;
        let named = [n0, n1, n2, n3, n4, n5, n6, n7, n8, n9];
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let mut method_text = Text::new();
        let method = method_text.read(env, method)?;
        let mut scratch = Scratch::uninit();
        let mut arena = Latin1::new(&mut scratch);
        let spans = arena.read_all(env, named);
        let values = arena.values(spans);
        let Answer {
            verdict,
            scopes,
            body,
        } = answer_of(env, verdict, scopes, body)?;
        outcome(env, core, |core| {
            core.start_answered(slot, method, &values, verdict, &scopes, body)
        })
    })
}

/// The strings of an array of strings.
///
/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn strings_of(env: sys::napi_env, value: Value) -> Result<Vec<String>, Fault> {
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
        let chunk = if is_undefined(env, chunk) {
            None
        } else {
            Some(bytes_of(env, chunk)?)
        };
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

/// `answerRead(core, slot, id, title, source, revision, brief?)`: the brief
/// as JSON.
unsafe extern "C" fn answer_read(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, id, title, source, revision, brief] = args::<7>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let (mut id_text, mut title_text, mut source_text) =
            (Text::new(), Text::new(), Text::new());
        let id = id_text.read(env, id)?;
        let title = title_text.read(env, title)?;
        let source = source_text.read(env, source)?;
        let revision = revision_of(env, revision)?;
        let brief = if is_undefined(env, brief) {
            None
        } else {
            let mut brief_text = Text::new();
            let json = brief_text.read(env, brief)?;
            Some(
                serde_json::from_str::<chopin_mcp::Brief>(json)
                    .map_err(|error| Fault::Misuse(format!("a document's brief: {error}")))?,
            )
        };
        let found = DocumentRef {
            id,
            title,
            source,
            revision,
        };
        outcome(env, core, |core| core.answer_found(slot, found, brief))
    })
}

/// A revision: a whole number from 0 to 2^53 - 1 (the package checks it;
/// this keeps the conversion exact whatever a caller of the addon passes).
///
/// # Safety
/// `env` and `value` are a running callback's.
unsafe fn revision_of(env: sys::napi_env, value: Value) -> Result<u64, Fault> {
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
unsafe fn optional(
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

/// The id and title of a rename's or restore's answer, when given.
///
/// # Safety
/// `env` and the values are a running callback's; the texts must not
/// outlive the callback.
unsafe fn pair(
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

/// [`Core::answer_rename`] or [`Core::answer_restore`].
type SummaryAnswer = for<'c, 't> fn(
    &'c mut Core,
    u32,
    ChangeKind,
    Option<(&'t str, &'t str)>,
) -> Result<&'c [u8], Misuse>;

/// A rename's or restore's answer, `(core, slot, kind, id?, title?)`,
/// given to `answer`.
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
        let [core, slot, kind, id, title] = args::<5>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = ChangeKind::of(u32_of(env, kind)?)?;
        let mut texts = (Text::new(), Text::new());
        let document = pair(env, &mut texts, id, title)?;
        outcome(env, core, |core| answer(core, slot, kind, document))
    }
}

/// `answerRename(core, slot, kind, id?, title?)`.
unsafe extern "C" fn answer_rename(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        answer_summary(env, info, Core::answer_rename)
    })
}

/// `answerArchive(core, slot, kind, id?, title?, archivedAt?)`.
unsafe extern "C" fn answer_archive(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        let [core, slot, kind, id, title, archived_at] = args::<6>(env, info)?;
        let (core, slot) = (u32_of(env, core)?, u32_of(env, slot)?);
        let kind = ChangeKind::of(u32_of(env, kind)?)?;
        let mut texts = (Text::new(), Text::new());
        let mut at_text = Text::new();
        let document = match pair(env, &mut texts, id, title)? {
            Some((id, title)) => Some((id, title, at_text.read(env, archived_at)?)),
            None => None,
        };
        outcome(env, core, |core| core.answer_archive(slot, kind, document))
    })
}

/// `answerRestore(core, slot, kind, id?, title?)`.
unsafe extern "C" fn answer_restore(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    guard(env, || unsafe {
        answer_summary(env, info, Core::answer_restore)
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
const EXPORTS: [(&CStr, Callback); 18] = [
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
    (c"plan", plan),
    (c"body", body),
    (c"release", release),
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
