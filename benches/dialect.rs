//! `dialect::check` (parse, canonicalize, validate) throughput on typical
//! plans and on 64 KiB adversarial inputs of each linear-time family.

use std::hint::black_box;

use chopin_mcp::SequentialIds;
use chopin_mcp::dialect::check;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "common/plans.rs"]
mod plans;

use plans::{adversarial, typical};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dialect/typical");
    for (name, size) in [
        ("4KiB", 4 * 1024),
        ("64KiB", 64 * 1024),
        ("256KiB", 256 * 1024),
    ] {
        let plan = typical(size);
        group.throughput(Throughput::Bytes(plan.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| check(black_box(&plan), &SequentialIds::new(0)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("dialect/adversarial-64KiB");
    for (name, plan) in adversarial(64 * 1024) {
        group.throughput(Throughput::Bytes(plan.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| check(black_box(&plan), &SequentialIds::new(0)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
