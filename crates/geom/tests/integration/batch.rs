//! The batch, packet and parallel ray casts against the scalar trait call,
//! bit for bit.

use geom::Real;
use geom::batch::{
    BatchReal, BatchShape, HitBatch, RayBatch, ray_cast_batch, ray_cast_batch_lanes, ray_cast_slice,
};
use geom::packet::{CapsulePacket, CuboidPacket, SpherePacket};
use geom::prelude::*;
use geom_random::Rng;
use nalgebra::Quaternion;
use simba::simd::{WideF32x4, WideF32x8, WideF64x4};
use std::sync::Arc;

fn convert<N: Real>(x: f64) -> N {
    nalgebra::convert(x)
}

/// Rays around a shape within `scale` of `center`: origins on a sphere of
/// radius 3·scale aimed at points near the shape (about half hit), origins
/// inside, random directions, and a few zero, tiny, axis-parallel and
/// non-finite ones.
fn random_rays<N: Real>(rng: &mut Rng, center: Point3<f64>, scale: f64, count: usize) -> Vec<Ray<N>> {
    (0..count)
        .map(|i| {
            let (origin, dir) = match i % 20 {
                0 => (center + rng.vector(scale), Vector3::zeros()),
                1 => (center + rng.vector(0.5 * scale), rng.vector(1.0)),
                2 => (center + rng.direction() * 3.0 * scale, rng.vector(1e-3)),
                3 => (
                    center + rng.vector(2.0 * scale),
                    Vector3::new(0.0, rng.range(-1.0, 1.0), 0.0),
                ),
                4 => (Point3::new(f64::NAN, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0)),
                5..=8 => (center + rng.vector(scale), rng.vector(1.0)),
                _ => {
                    let origin = center + rng.direction() * 3.0 * scale;
                    let target = center + rng.vector(scale);
                    (origin, (target - origin) * rng.range(0.2, 2.0))
                }
            };
            Ray::new(origin.map(convert), dir.map(convert))
        })
        .collect()
}

/// Bitwise equality of two answers (`==` would let `-0.0 == 0.0` through).
fn same_bits<N: Real>(a: &Option<RayHit<N>>, b: &Option<RayHit<N>>) -> bool {
    let bits = |x: N| x.to_subset().map(f64::to_bits);
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            bits(a.t) == bits(b.t)
                && a.feature == b.feature
                && (0..3).all(|k| bits(a.normal[k]) == bits(b.normal[k]))
        }
        _ => false,
    }
}

fn poses<N: Real>(center: Point3<f64>) -> Vec<Isometry3<N>> {
    let rotation = UnitQuaternion::new_normalize(Quaternion::new(0.9, -0.3, 0.2, 0.4));
    [
        Isometry3::identity(),
        Isometry3::translation(center.x, center.y, center.z),
        Isometry3::from_parts(center.coords.into(), rotation),
    ]
    .iter()
    .map(|pose| pose.cast::<N>())
    .collect()
}

/// 10⁵ rays through the batch and through the trait, in `N`'s precision.
fn check_batch_equals_scalar<N: BatchReal, S: BatchShape<N>>(shape: &S, name: &str) {
    let center = Point3::new(3.0, -2.0, 1.5);
    let mut rng = Rng::new(name.len() as u64 * 31 + 7);
    let mut out = HitBatch::new();
    let reach: f64 = shape.local_aabb().origin_reach().to_subset().unwrap();
    let scale = 0.6 * reach;
    let mut hits = 0;
    let mut total = 0;
    for (p, pose) in poses::<N>(center).iter().enumerate() {
        for (solid, max_t) in [
            (true, f64::INFINITY),
            (false, f64::INFINITY),
            (true, 2.5),
            (false, 2.5),
        ] {
            // Rays placed around where the pose puts the shape.
            let placed = if p == 0 { Point3::origin() } else { center };
            let rays = random_rays::<N>(&mut rng, placed, scale, 100_000 / 12 + 1);
            let batch = RayBatch::from_rays(&rays);
            let max_t = convert::<N>(max_t);
            ray_cast_batch(shape, pose, &batch, max_t, solid, &mut out);
            assert_eq!(out.len(), rays.len());
            for (i, ray) in rays.iter().enumerate() {
                let scalar = shape.ray_cast(pose, ray, max_t, solid);
                let batched = out.get(i);
                assert!(
                    same_bits(&scalar, &batched),
                    "{name}: ray {i} {ray:?} pose {pose:?} solid {solid}: {batched:?} vs {scalar:?}"
                );
                hits += scalar.is_some() as usize;
                total += 1;
            }
        }
    }
    assert!(total >= 100_000);
    assert!(
        hits * 5 > total && hits * 5 < total * 4,
        "{name}: {hits} hits of {total}"
    );
}

fn check_every_shape<N: BatchReal>() {
    let p = |x: f64, y: f64, z: f64| Point3::new(convert::<N>(x), convert(y), convert(z));
    let v = |x: f64, y: f64, z: f64| Vector3::new(convert::<N>(x), convert(y), convert(z));
    let r = convert::<N>;
    check_batch_equals_scalar(&Sphere::new(r(1.5)), "sphere");
    check_batch_equals_scalar(
        &Capsule::from_points(p(-0.5, -1.0, 0.2), p(0.5, 1.0, -0.2), r(0.6)),
        "capsule",
    );
    check_batch_equals_scalar(
        &Cylinder::from_points(p(0.0, -1.0, 0.3), p(0.2, 1.2, 0.0), r(0.8)),
        "cylinder",
    );
    check_batch_equals_scalar(
        &Cone::from_points(p(0.0, 1.2, 0.0), p(0.1, -1.0, 0.2), r(1.0)),
        "cone",
    );
    check_batch_equals_scalar(&Ellipsoid::new(v(1.5, 0.7, 1.1)), "ellipsoid");
    check_batch_equals_scalar(&Cuboid::new(v(1.2, 0.6, 0.9)), "box");
    check_batch_equals_scalar(
        &Triangle::new(p(-1.5, 0.0, -1.0), p(1.5, 0.3, -1.0), p(0.0, -0.2, 1.5)),
        "triangle",
    );
    check_batch_equals_scalar(&terrain::<N>(), "heightfield");
    // Meshes and compounds cast a long batch in their tree's ray order:
    // the answers land in the rays' rows all the same.
    check_batch_equals_scalar(&TriMesh::from_heightfield(&terrain::<N>()).unwrap(), "open mesh");
    check_batch_equals_scalar(&octahedron::<N>(), "closed mesh");
    let children: Vec<geom::base::compound::Child<N>> = vec![
        (
            Isometry3::translation(r(-1.0), r(0.0), r(0.0)),
            Arc::new(Sphere::new(r(0.8))),
        ),
        (
            Isometry3::new(v(1.0, 0.2, 0.0), v(0.3, 0.0, 0.5)),
            Arc::new(Cuboid::new(v(0.7, 0.5, 0.6))),
        ),
        (Isometry3::identity(), Arc::new(octahedron::<N>())),
    ];
    check_batch_equals_scalar(&Compound::new(children).unwrap(), "compound");
}

/// A closed mesh: the octahedron of radius 1.3 about the origin.
fn octahedron<N: Real>() -> TriMesh<N> {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z).map(|c| convert::<N>(1.3 * c));
    let vertices = vec![
        p(1.0, 0.0, 0.0),
        p(-1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
        p(0.0, -1.0, 0.0),
        p(0.0, 0.0, 1.0),
        p(0.0, 0.0, -1.0),
    ];
    let indices = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    let mesh = TriMesh::new(vertices, indices).unwrap();
    assert!(mesh.is_closed());
    mesh
}

/// A bumpy 9 × 9 terrain over [−2, 2]², one flipped cell and one hole.
fn terrain<N: Real>() -> HeightField<N> {
    let heights = (0..81)
        .map(|k| {
            let (i, j) = ((k / 9) as f64, (k % 9) as f64);
            convert::<N>(0.4 * (1.3 * i).sin() * (0.9 * j + 0.4).cos())
        })
        .collect();
    let mut desc = HeightFieldDesc::new(
        Point3::new(-2.0, 0.0, -2.0).map(convert),
        [convert(0.5); 2],
        9,
        9,
        heights,
    );
    desc.flipped_cells = vec![10];
    desc.hole_cells = vec![40];
    HeightField::try_from_desc(desc).unwrap()
}

#[test]
fn batch_equals_scalar_f32() {
    check_every_shape::<f32>();
}

#[test]
fn batch_equals_scalar_f64() {
    check_every_shape::<f64>();
}

/// Every length 0..=17 (empty, tails alone, whole packs and tails) on
/// each lane pack, reusing one output batch.
#[test]
fn tails_of_every_length() {
    let capsule32 = Capsule::from_points(Point3::new(-0.5, 0.0, 0.0), Point3::new(0.5, 0.2, 0.0), 0.7f32);
    let capsule64 = Capsule::from_points(Point3::new(-0.5, 0.0, 0.0), Point3::new(0.5, 0.2, 0.0), 0.7f64);
    let pose32 = poses::<f32>(Point3::new(1.0, 2.0, 3.0))[2];
    let pose64 = poses::<f64>(Point3::new(1.0, 2.0, 3.0))[2];
    let mut rng = Rng::new(3);
    let mut out32 = HitBatch::with_capacity(17);
    let mut out64 = HitBatch::with_capacity(17);
    for len in 0..=17 {
        let rays32 = random_rays::<f32>(&mut rng, Point3::new(1.0, 2.0, 3.0), 1.0, len);
        let rays64 = random_rays::<f64>(&mut rng, Point3::new(1.0, 2.0, 3.0), 1.0, len);
        let batch32 = RayBatch::from_rays(&rays32);
        let batch64: RayBatch<f64> = rays64.iter().copied().collect();
        assert_eq!(batch32.len(), len);
        let expected32: Vec<_> = rays32
            .iter()
            .map(|ray| capsule32.ray_cast(&pose32, ray, f32::INFINITY, true))
            .collect();
        let expected64: Vec<_> = rays64
            .iter()
            .map(|ray| capsule64.ray_cast(&pose64, ray, f64::INFINITY, true))
            .collect();
        let matches = |got: Vec<Option<RayHit<f32>>>| {
            got.len() == len && got.iter().zip(&expected32).all(|(a, b)| same_bits(a, b))
        };
        ray_cast_batch_lanes::<WideF32x4, _>(&capsule32, &pose32, &batch32, f32::INFINITY, true, &mut out32);
        assert!(matches(out32.iter().collect()), "x4, length {len}");
        ray_cast_batch_lanes::<WideF32x8, _>(&capsule32, &pose32, &batch32, f32::INFINITY, true, &mut out32);
        assert!(matches(out32.iter().collect()), "x8, length {len}");
        assert!(matches(ray_cast_slice(
            &capsule32,
            &pose32,
            &rays32,
            f32::INFINITY,
            true
        )));
        ray_cast_batch_lanes::<WideF64x4, _>(&capsule64, &pose64, &batch64, f64::INFINITY, true, &mut out64);
        assert_eq!(out64.len(), len);
        assert!(
            out64.iter().zip(&expected64).all(|(a, b)| same_bits(&a, b)),
            "f64, length {len}"
        );
    }
    // Reused buffers keep their memory.
    let mut batch = RayBatch::<f32>::with_capacity(4);
    batch.push(&Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::x()));
    batch.clear();
    assert!(batch.is_empty());
    out32.clear();
    assert!(out32.is_empty());
}

/// The nearest hit among the trait calls, lowest index on ties.
fn nearest_of<N: Real>(answers: impl Iterator<Item = Option<RayHit<N>>>) -> Option<(usize, RayHit<N>)> {
    let mut best: Option<(usize, RayHit<N>)> = None;
    for (i, answer) in answers.enumerate() {
        if let Some(hit) = answer
            && best.as_ref().is_none_or(|(_, b)| hit.t < b.t)
        {
            best = Some((i, hit));
        }
    }
    best
}

fn same_nearest<N: Real>(a: &Option<(usize, RayHit<N>)>, b: &Option<(usize, RayHit<N>)>) -> bool {
    a.map(|(i, _)| i) == b.map(|(i, _)| i) && same_bits(&a.map(|(_, h)| h), &b.map(|(_, h)| h))
}

#[test]
fn packets_equal_the_trait_calls() {
    let mut rng = Rng::new(17);
    let mut hits = 0;
    for round in 0..400 {
        let len = if round % 4 == 0 { round % 9 } else { 8 };
        let at = |rng: &mut Rng| Point3::from(rng.vector(4.0)).map(|c| c as f32);
        let spheres: Vec<_> = (0..len)
            .map(|_| (at(&mut rng), Sphere::new(rng.range(0.2, 1.0) as f32)))
            .collect();
        let capsules: Vec<_> = (0..len)
            .map(|_| {
                let a = at(&mut rng);
                let b = a + rng.vector(1.0).map(|c| c as f32);
                Capsule::from_points(a, b, rng.range(0.1, 0.7) as f32)
            })
            .collect();
        let boxes: Vec<_> = (0..len)
            .map(|_| (at(&mut rng), Cuboid::new(rng.vector(1.0).map(|c| c.abs() as f32))))
            .collect();
        let sphere_packet = SpherePacket::<WideF32x8>::new(&spheres);
        let capsule_packet = CapsulePacket::<WideF32x8>::new(&capsules);
        let box_packet = CuboidPacket::<WideF32x8>::new(&boxes);
        assert_eq!(sphere_packet.len(), len);
        for ray in random_rays::<f32>(&mut rng, Point3::origin(), 4.0, 50) {
            for solid in [true, false] {
                let max_t = if solid { f32::INFINITY } else { 3.0 };
                let translated = |c: &Point3<f32>| Isometry3::translation(c.x, c.y, c.z);
                let expected = nearest_of(
                    spheres
                        .iter()
                        .map(|(c, s)| s.ray_cast(&translated(c), &ray, max_t, solid)),
                );
                assert!(same_nearest(
                    &sphere_packet.ray_cast(&ray, max_t, solid),
                    &expected
                ));
                hits += expected.is_some() as usize;
                let expected = nearest_of(
                    capsules
                        .iter()
                        .map(|c| c.ray_cast(&Isometry3::identity(), &ray, max_t, solid)),
                );
                assert!(same_nearest(
                    &capsule_packet.ray_cast(&ray, max_t, solid),
                    &expected
                ));
                let expected = nearest_of(
                    boxes
                        .iter()
                        .map(|(c, b)| b.ray_cast(&translated(c), &ray, max_t, solid)),
                );
                assert!(same_nearest(&box_packet.ray_cast(&ray, max_t, solid), &expected));
            }
        }
    }
    assert!(hits > 2000, "{hits}");
    // f64 packets hold four shapes.
    let spheres = [(Point3::new(0.0, 0.0, 5.0), Sphere::new(1.0f64)); 4];
    let ray = Ray::new(Point3::origin(), Vector3::z());
    let (index, hit) = SpherePacket::<WideF64x4>::new(&spheres)
        .ray_cast(&ray, f64::INFINITY, true)
        .unwrap();
    assert_eq!((index, hit.t), (0, 4.0));
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_is_independent_of_the_thread_count() {
    use geom::parallel::par_ray_cast_batch;
    let shape = Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.8f32);
    let pose = poses::<f32>(Point3::new(1.0, 2.0, 3.0))[2];
    let mut rng = Rng::new(5);
    // Not a multiple of the task size or of the lanes.
    let rays = RayBatch::from_rays(&random_rays::<f32>(
        &mut rng,
        Point3::new(1.0, 2.0, 3.0),
        1.0,
        70_003,
    ));
    let mut single = HitBatch::new();
    ray_cast_batch(&shape, &pose, &rays, f32::INFINITY, false, &mut single);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut parallel = HitBatch::new();
        pool.install(|| par_ray_cast_batch(&shape, &pose, &rays, f32::INFINITY, false, &mut parallel));
        assert_eq!(parallel.len(), single.len());
        assert!(
            parallel.iter().zip(single.iter()).all(|(a, b)| same_bits(&a, &b)),
            "{threads} threads"
        );
    }
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_heightfield_batches_equal_the_trait_calls() {
    use geom::parallel::par_ray_cast_batch;
    let field = terrain::<f32>();
    let mut rng = Rng::new(8);
    for pose in poses::<f32>(Point3::new(1.0, 2.0, 3.0)) {
        let placed = pose.translation.vector.map(f64::from);
        let rays = random_rays::<f32>(&mut rng, Point3::from(placed), 2.0, 40_003);
        let batch = RayBatch::from_rays(&rays);
        let mut out = HitBatch::new();
        par_ray_cast_batch(&field, &pose, &batch, f32::INFINITY, true, &mut out);
        let mut hits = 0;
        for (i, ray) in rays.iter().enumerate() {
            let scalar = field.ray_cast(&pose, ray, f32::INFINITY, true);
            assert!(
                same_bits(&scalar, &out.get(i)),
                "ray {i}: {:?} vs {scalar:?}",
                out.get(i)
            );
            hits += usize::from(scalar.is_some());
        }
        assert!(hits > rays.len() / 5, "{hits} hits");
    }
}

/// Found by the `batch` fuzz target (third round, 11 saved inputs): for a
/// segment and a ray from −3.4e38 (`f32`), the 8-lane batch hit at
/// t = 1.9e38 where the trait call missed. `closest_point_on_segment`
/// clamped its parameter with `simd_clamp`, whose NaN rule differs between
/// scalars (NaN) and `wide` lanes (the bound); it now uses
/// `lane_max`/`lane_min` (one rule), and the segment kernel no longer
/// accepts a gap against an infinite tolerance. Lanes equal scalars, and
/// neither reports the false hit.
#[test]
fn segment_batch_equals_the_trait_call_for_origins_near_the_float_limit() {
    let segments = [
        Segment::new(Point3::origin(), Point3::new(0.375f32, 0.0, 0.0)),
        Segment::new(Point3::new(0.0, 1.1920929e-7, 0.0), Point3::new(0.0, 0.0, 0.125)),
        Segment::new(Point3::new(11.0, 0.0, 0.0), Point3::new(11.0, 0.125, 0.0)),
    ];
    let rays = [
        Ray::new(
            Point3::new(0.0, -3.4028235e38, 0.875),
            Vector3::new(0.875, 0.875, 0.875),
        ),
        Ray::new(
            Point3::new(3.689e-41, 2.3509886e-38, -1.7273731e38),
            Vector3::new(2.1214734e-34, 4.5, 6.875),
        ),
        Ray::new(
            Point3::new(1.1754944e-38, 1.1754944e-38, -3.4028235e38),
            Vector3::new(2.875, -10000.0, 2.875),
        ),
    ];
    let mut out = HitBatch::new();
    for segment in &segments {
        for solid in [true, false] {
            let batch = RayBatch::from_rays(&rays);
            for pose in [
                Isometry3::identity(),
                Isometry3::translation(1e-7, 1.1754944e-38, 1.1754944e-38),
            ] {
                ray_cast_batch(segment, &pose, &batch, f32::INFINITY, solid, &mut out);
                for (i, ray) in rays.iter().enumerate() {
                    let scalar = segment.ray_cast(&pose, ray, f32::INFINITY, solid);
                    assert!(
                        same_bits(&scalar, &out.get(i)),
                        "{segment:?} {ray:?}: {:?} vs {scalar:?}",
                        out.get(i)
                    );
                    // The rays pass nowhere near the segments.
                    assert!(scalar.is_none(), "{segment:?} {ray:?}: {scalar:?}");
                }
            }
        }
    }
}

/// A shape whose own ray cast runs a batch through a mesh (the octahedron)
/// and answers that batch's first row: a compound holding it batches
/// without the nested batch tripping over the outer one's buffer.
#[derive(Debug)]
struct BatchingShape {
    mesh: TriMesh<f64>,
}

impl Shape<f64> for BatchingShape {
    fn kind(&self) -> ShapeKind {
        self.mesh.kind()
    }
    fn is_convex(&self) -> bool {
        false
    }
    fn local_aabb(&self) -> Aabb<f64> {
        self.mesh.local_aabb()
    }
    fn ray_cast_local(&self, ray: &Ray<f64>, max_t: f64, solid: bool) -> Option<RayHit<f64>> {
        // The ray and 299 copies: long enough for the mesh's ordered path.
        let rays: RayBatch<f64> = std::iter::repeat_n(*ray, 300).collect();
        let mut hits = HitBatch::new();
        ray_cast_batch(&self.mesh, &Isometry3::identity(), &rays, max_t, solid, &mut hits);
        hits.get(0)
    }
    fn closest_point_local(&self, point: &Point3<f64>, solid: bool) -> Option<geom::PointProjection<f64>> {
        self.mesh.closest_point_local(point, solid)
    }
    fn support_local(&self, _: &Vector3<f64>) -> Option<Point3<f64>> {
        None
    }
}

#[test]
fn a_batch_inside_a_batched_shape_neither_panics_nor_changes_the_answers() {
    let inner = BatchingShape { mesh: octahedron() };
    let compound = Compound::new(vec![(
        Isometry3::translation(0.5, 0.0, 0.0),
        Arc::new(inner) as Arc<dyn Shape<f64>>,
    )])
    .unwrap();
    let mut rng = Rng::new(5);
    let rays = random_rays::<f64>(&mut rng, Point3::new(0.5, 0.0, 0.0), 1.3, 400);
    let batch = RayBatch::from_rays(&rays);
    let mut out = HitBatch::new();
    ray_cast_batch(
        &compound,
        &Isometry3::identity(),
        &batch,
        f64::INFINITY,
        true,
        &mut out,
    );
    let mesh = octahedron::<f64>();
    let moved = Isometry3::translation(0.5, 0.0, 0.0);
    let mut hits = 0;
    for (i, ray) in rays.iter().enumerate() {
        let expected = compound.ray_cast(&Isometry3::identity(), ray, f64::INFINITY, true);
        assert!(same_bits(&out.get(i), &expected), "ray {i}");
        // And the compound's answer is the mesh's own.
        let direct = mesh.ray_cast(&moved, ray, f64::INFINITY, true);
        assert_eq!(expected.map(|h| h.t), direct.map(|h| h.t), "ray {i}");
        hits += usize::from(expected.is_some());
    }
    assert!(hits > 100, "{hits} hits");
}
