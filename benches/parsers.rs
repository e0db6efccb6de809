//! The untrusted-input parsers on adversarial shapes, each at two sizes (n and
//! 2n), so the ratio of the medians shows whether they scale linearly.

use bytes::Bytes;
use chopin_mcp::http1::{self, BodyDecoder, Framing};
use chopin_mcp::negotiate::quality;
use chopin_mcp::{Config, Endpoint, Header, Outcome, RequestParts};
use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

const SIZES: [usize; 2] = [16 * 1024, 32 * 1024];

fn repeat(unit: &str, bytes: usize) -> Vec<u8> {
    unit.repeat(bytes / unit.len()).into_bytes()
}

fn accept(c: &mut Criterion) {
    let mut group = c.benchmark_group("accept_adversarial");
    for (family, unit) in [
        ("commas", ","),
        ("semicolons", "a/b;"),
        ("quotes", "a/b;x=\","),
        ("ranges", "text/event-stream;q=0.5,"),
    ] {
        for size in SIZES {
            let header = repeat(unit, size);
            group.throughput(Throughput::Bytes(header.len() as u64));
            group.bench_with_input(BenchmarkId::new(family, size), &header, |b, header| {
                b.iter(|| quality(Some([black_box(&header[..])]), "text", "event-stream"))
            });
        }
    }
    group.finish();
}

fn jsonrpc(c: &mut Criterion) {
    let endpoint = Endpoint::new(Config::new()).unwrap();
    let headers = [Header::new("authorization", b"Bearer x")];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let mut group = c.benchmark_group("jsonrpc_adversarial");
    type Family = (&'static str, fn(usize) -> Vec<u8>);
    let families: [Family; 3] = [
        ("deep_arrays", |n| {
            let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"#.to_vec();
            body.extend(std::iter::repeat_n(b'[', n / 2));
            body
        }),
        ("many_members", |n| {
            let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"ping""#.to_vec();
            body.extend(repeat(r#","a":1"#, n));
            body.push(b'}');
            body
        }),
        ("escaped_id", |n| {
            let mut body = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_document","arguments":{"id":""#.to_vec();
            body.extend(repeat(r"\u0041", n));
            body.extend_from_slice(br#""}},"id":1}"#);
            body
        }),
    ];
    for (family, make) in families {
        for size in SIZES {
            let body = Bytes::from(make(size));
            group.throughput(Throughput::Bytes(body.len() as u64));
            group.bench_with_input(BenchmarkId::new(family, size), &body, |b, body| {
                b.iter(|| {
                    let mut outcome: Outcome<()> = endpoint.handle(&parts, body.clone());
                    loop {
                        outcome = match outcome {
                            Outcome::Respond(response) => break black_box(response),
                            Outcome::Authenticate(auth) => auth.answer(Some(())),
                            Outcome::Read(read) => read.answer(None),
                            other => panic!("{other:?}"),
                        }
                    }
                })
            });
        }
    }
    group.finish();
}

fn http1_parsers(c: &mut Criterion) {
    let mut group = c.benchmark_group("http1_adversarial");
    for size in [4 * 1024, 8 * 1024] {
        // A head of many short headers, up to the header-count cap, then
        // padding in one long value.
        let mut head = b"POST /mcp HTTP/1.1\r\n".to_vec();
        for i in 0..60 {
            head.extend_from_slice(format!("x-{i}: y\r\n").as_bytes());
        }
        head.extend_from_slice(b"x-pad: ");
        head.resize(size - 4, b'p');
        head.extend_from_slice(b"\r\n\r\n");
        group.throughput(Throughput::Bytes(head.len() as u64));
        group.bench_with_input(BenchmarkId::new("head", size), &head, |b, head| {
            b.iter(|| http1::parse_head(black_box(head)).unwrap().unwrap().len())
        });
        group.bench_with_input(
            BenchmarkId::new("head_scan_bytewise", size),
            &head,
            |b, head| {
                b.iter(|| {
                    let mut scanner = http1::HeadScanner::new();
                    (1..=head.len()).find(|&end| scanner.scan(&head[..end]).unwrap())
                })
            },
        );
    }
    for size in [32 * 1024, 64 * 1024] {
        // One-byte chunks: the most framing per body byte.
        let chunked = repeat("1\r\nx\r\n", size * 6);
        let mut body = chunked;
        body.extend_from_slice(b"0\r\n\r\n");
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("chunked_1_byte_chunks", size),
            &body,
            |b, body| {
                b.iter(|| {
                    let mut decoder = BodyDecoder::new(Framing::Chunked);
                    let mut at = 0;
                    let mut total = 0;
                    while !decoder.is_done() {
                        let decoded = decoder.decode(&body[at..]).unwrap();
                        at += decoded.consumed;
                        total += decoded.data.len();
                    }
                    total
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, accept, jsonrpc, http1_parsers);
criterion_main!(benches);
