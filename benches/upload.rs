//! upload_image (SURFACE.md §8): a 1 MiB PNG through `Endpoint::handle`
//! (head → authenticate → the checks → the upload effect, answered
//! `Stored` → serialized response), beside the floor under it: a bare
//! base64 decode and SHA-256 of the same text (the `base64` crate's decoder,
//! `sha2`'s digest). The ratio of the two medians is what the endpoint adds
//! (JSON reading, the length count, the signature check, the reply); the
//! target is at most 2×.

use base64::Engine as _;
use bytes::Bytes;
use chopin_mcp::{
    Config, Endpoint, Header, Outcome, RequestParts, SequentialIds, StoreImageAnswer,
};
use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use sha2::{Digest, Sha256};

/// 1 MiB: the PNG signature, then bytes that look like compressed data.
fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    while bytes.len() < 1 << 20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.push(state as u8);
    }
    bytes
}

fn upload(c: &mut Criterion) {
    let endpoint = Endpoint::new(
        Config::new()
            .enable_upload()
            .id_source(SequentialIds::new(1)),
    )
    .expect("valid config");
    let image = png();
    let data = base64::engine::general_purpose::STANDARD.encode(&image);
    let body = Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"upload_image","arguments":{{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4","data":"{data}","mimeType":"image/png"}}}}}}"#
    ));
    let headers = [
        Header::new("authorization", b"Bearer bench"),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let drive = |mut outcome: Outcome<()>| loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.answer(Some(())),
            Outcome::StoreImage(store) => {
                black_box(store.bytes());
                store.answer(StoreImageAnswer::Stored)
            }
            other => panic!("an upload asked for {other:?}"),
        };
    };
    let reply = drive(endpoint.handle(&parts, body.clone()));
    assert_eq!(reply.status(), 200);
    assert!(
        std::str::from_utf8(reply.body()).is_ok_and(|text| text.contains("\"path\":\"/images/")),
        "not stored"
    );

    let mut group = c.benchmark_group("upload_image");
    group.sample_size(30);
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("handle_1MiB_png", |b| {
        b.iter(|| black_box(drive(endpoint.handle(black_box(&parts), body.clone()))))
    });
    group.bench_function("bare_decode_and_sha256", |b| {
        b.iter(|| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(black_box(data.as_bytes()))
                .expect("base64");
            black_box(<[u8; 32]>::from(Sha256::digest(&bytes)))
        })
    });
    group.finish();
}

criterion_group!(benches, upload);
criterion_main!(benches);
