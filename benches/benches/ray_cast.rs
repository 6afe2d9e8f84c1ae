//! Criterion groups, each pair through geom and parry3d on identical
//! inputs: per-ray scalar trait calls (`scalar`), 10⁶ random rays through
//! the trait, the 4- and 8-lane batch and the parallel batch (`rays_1e6`),
//! one ray against an 8-shape packet (`packet`), heightfields
//! (`terrain`) and pair contacts through the dispatch table (`pairs`). The same passes as the
//! `compare` binary.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use geom_benches::measures;

fn ray_casts(c: &mut Criterion) {
    for measure in measures(2) {
        let (group_name, variant) = measure.name.split_once('/').unwrap_or(("misc", &measure.name));
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(measure.items as u64));
        if matches!(group_name, "rays_1e6" | "terrain" | "mesh" | "bvh" | "world") {
            group.sample_size(10);
        }
        let mut geom = measure.geom;
        group.bench_function(format!("{variant}/geom"), |b| b.iter(&mut geom));
        if let Some(mut parry) = measure.parry {
            group.bench_function(format!("{variant}/parry3d"), |b| b.iter(&mut parry));
        }
        group.finish();
    }
}

criterion_group!(benches, ray_casts);
criterion_main!(benches);
