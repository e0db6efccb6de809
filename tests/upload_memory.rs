//! A 1 MiB upload holds no second copy of its body (SURFACE.md §8 through
//! the body budget): held (`Endpoint::handle`), the exchange's peak beyond
//! the body it was handed is the decoded bytes and little more; pushed
//! chunk by chunk (`Endpoint::begin`), the body once, as the budget counts
//! it, and the decoded bytes.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::Bytes;
use chopin_mcp::{BodyChunks, Header, Outcome, RequestParts, StoreImageAnswer};
use common::{base64, call, uploading};
use serde_json::json;

struct Peak;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// Starts counting the peak from the bytes held now.
fn reset() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(live));
    live
}

fn peak() -> isize {
    PEAK.with(Cell::get)
}

const MIB: isize = 1 << 20;
/// What an exchange holds beside the body and the image: the reply, the
/// kept headers, the effect's own small values.
const SLACK: isize = 64 * 1024;

/// A `tools/call upload_image` of 1 MiB (the PNG signature, then zeros).
fn body() -> Vec<u8> {
    let mut image = b"\x89PNG\r\n\x1a\n".to_vec();
    image.resize(MIB as usize, 0);
    let arguments = json!({"id": "f401c8d6-3717-4f1d-8473-cfdd0af894e4", "data": base64(&image), "mimeType": "image/png"});
    serde_json::to_vec(&call(json!(1), "upload_image", arguments)).unwrap()
}

/// Drives an upload to its response, answering `Stored`; the peak bytes
/// held above `base` while it ran, and the size of the bytes the host got.
fn drive(
    mut outcome: Outcome<()>,
    base: isize,
    chunks: &mut dyn Iterator<Item = Bytes>,
) -> (isize, usize) {
    let mut image = 0;
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => {
                assert_eq!(response.status(), 200);
                return (peak() - base, image);
            }
            Outcome::Authenticate(auth) => auth.answer(Some(())),
            Outcome::Body(mut intake) => loop {
                match chunks.next() {
                    None => break intake.finish(),
                    Some(chunk) => match intake.push(&chunk) {
                        Ok(next) => intake = next,
                        Err(response) => break Outcome::Respond(response),
                    },
                }
            },
            Outcome::StoreImage(store) => {
                image = store.bytes().len();
                store.answer(StoreImageAnswer::Stored)
            }
            other => panic!("an upload asked for {other:?}"),
        };
    }
}

fn parts_of<'a>(headers: &'a [Header<'a>]) -> RequestParts<'a> {
    RequestParts::new("POST", "/mcp", headers)
}

#[test]
fn a_held_upload_holds_the_decoded_bytes_beside_its_body_and_no_copy() {
    let endpoint = uploading();
    let headers = [
        Header::new("authorization", b"Bearer x"),
        Header::new("content-type", b"application/json"),
    ];
    let body = Bytes::from(body());
    let base = reset();
    let outcome = endpoint.handle::<()>(&parts_of(&headers), BodyChunks::from(body.clone()));
    let (held, image) = drive(outcome, base, &mut std::iter::empty());
    assert_eq!(image, MIB as usize);
    assert!(held <= MIB + SLACK, "held {held} bytes beyond the body");
}

#[test]
fn a_pushed_upload_holds_its_body_once_and_the_decoded_bytes() {
    let endpoint = uploading();
    let headers = [
        Header::new("authorization", b"Bearer x"),
        Header::new("content-type", b"application/json"),
    ];
    let body = body();
    let chunks: Vec<Bytes> = body.chunks(16 * 1024).map(Bytes::copy_from_slice).collect();
    drop(body);
    let size: isize = chunks.iter().map(|c| c.len() as isize).sum();
    let base = reset();
    let outcome = endpoint.begin::<()>(&parts_of(&headers));
    let (held, image) = drive(outcome, base, &mut chunks.into_iter());
    assert_eq!(image, MIB as usize);
    assert!(
        held <= size + MIB + SLACK,
        "held {held} bytes for a {size}-byte body"
    );
}
