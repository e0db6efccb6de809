//! `dialect::check` (parse, canonicalize, validate) throughput on typical
//! plans and on 32 KiB and 64 KiB adversarial inputs of each linear-time
//! family (the pair gives each family's doubling ratio).

use std::hint::black_box;

use chopin_dialect::SequentialIds;
use chopin_dialect::check;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use chopin_test_support::plans;

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

    // 32 KiB beside 64 KiB, so that the doubling ratio of each family comes
    // from two criterion medians rather than from one-shot runs.
    for (label, size) in [
        ("adversarial-32KiB", 32 * 1024),
        ("adversarial-64KiB", 64 * 1024),
    ] {
        let mut group = c.benchmark_group(format!("dialect/{label}"));
        for (name, plan) in adversarial(size) {
            group.throughput(Throughput::Bytes(plan.len() as u64));
            group.bench_function(name, |b| {
                b.iter(|| check(black_box(&plan), &SequentialIds::new(0)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
