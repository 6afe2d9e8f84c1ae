//! Benchmark support for geom: the scenes, rays and timed passes that the
//! criterion groups (`benches/ray_cast.rs`) and the `compare` binary both
//! run, each through geom and through parry3d on identical inputs (converted
//! to parry's glam types before any timing). See `docs/benchmarks.md`.
#![deny(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use geom::batch::{HitBatch, Pack, RayBatch, ray_cast_batch_lanes};
use geom::packet::{CapsulePacket, CuboidPacket, SpherePacket};
use geom::parallel::par_ray_cast_batch;
use geom::prelude::*;
use geom::{LaneShape, Shape};
use parry3d::math::{Pose, Rot3, Vector};
use parry3d::query::RayCast;
use simba::simd::{WideF32x4, WideF32x8};

pub mod frame;
pub mod mesh;
pub mod pairs;

/// One timed pass: runs the work once and returns a checksum (kept alive
/// with `black_box` so the work cannot be optimised away).
pub type Pass = Box<dyn FnMut() -> f32>;

/// A pair of passes over the same inputs, geom and (where it has the shape
/// or the operation) parry3d.
pub struct Measure {
    /// `group/shape/variant`, for example `rays_1e6/sphere/batch_x8`.
    pub name: String,
    /// The geom measure this one is compared with (lane and thread variants).
    pub baseline: Option<String>,
    /// Queries per pass (a pass's time divided by this is ns per query).
    pub items: usize,
    /// The geom pass.
    pub geom: Pass,
    /// The parry3d pass on the same inputs, if parry has it.
    pub parry: Option<Pass>,
}

impl std::fmt::Debug for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Measure")
            .field("name", &self.name)
            .field("baseline", &self.baseline)
            .field("items", &self.items)
            .finish_non_exhaustive()
    }
}

/// The rays of a size class, shared by every measure.
#[derive(Debug)]
pub struct Rays {
    /// As geom rays, for the trait calls.
    pub geom: Vec<Ray<f32>>,
    /// The same rays as a struct-of-arrays batch.
    pub batch: RayBatch<f32>,
    /// The same rays as parry3d rays.
    pub parry: Vec<parry3d::query::Ray>,
}

/// The world centre every benchmarked shape sits at.
pub fn center() -> Point3<f32> {
    Point3::new(1.0, 2.0, 3.0)
}

/// The rotation of every benchmarked pose (normalised once, in f32, so geom
/// and parry get the same four numbers).
fn rotation() -> UnitQuaternion<f32> {
    UnitQuaternion::new_normalize(geom::nalgebra::Quaternion::new(0.9, -0.3, 0.2, 0.4))
}

/// The benchmarked pose in geom's terms.
pub fn geom_pose() -> Isometry3<f32> {
    Isometry3::from_parts(center().coords.into(), rotation())
}

/// The benchmarked pose in parry's terms (the same numbers).
pub fn parry_pose() -> Pose {
    let q = rotation();
    let c = center();
    Pose::from_parts(Vector::new(c.x, c.y, c.z), Rot3::from_xyzw(q.i, q.j, q.k, q.w))
}

/// Any geom pose in parry3d's terms (the same numbers).
pub fn pose_to_parry(pose: &Isometry3<f32>) -> Pose {
    let (t, q) = (pose.translation.vector, pose.rotation);
    Pose::from_parts(Vector::new(t.x, t.y, t.z), Rot3::from_xyzw(q.i, q.j, q.k, q.w))
}

/// A geom ray as a parry3d ray.
pub fn to_parry(ray: &Ray<f32>) -> parry3d::query::Ray {
    parry3d::query::Ray::new(
        Vector::new(ray.origin.x, ray.origin.y, ray.origin.z),
        Vector::new(ray.dir.x, ray.dir.y, ray.dir.z),
    )
}

/// The workspace's test and bench generator.
pub use geom_random::Rng;

/// `count` rays from a sphere of radius 6 around [`center`] towards points
/// within 2.6 of it, so that about half of them hit the unit-sized shapes.
pub fn random_rays(count: usize, seed: u64) -> Rays {
    let mut rng = Rng::new(seed);
    let geom: Vec<Ray<f32>> = (0..count)
        .map(|_| {
            let origin = center() + rng.direction_f32() * 6.0;
            let target = center() + rng.direction_f32() * rng.range_f32(0.0, 2.6);
            Ray::new(origin, target - origin)
        })
        .collect();
    Rays {
        batch: RayBatch::from_rays(&geom),
        parry: geom.iter().map(to_parry).collect(),
        geom,
    }
}

/// The shapes compared, unit-sized, with their parry3d twins (`None` where
/// parry has no such shape). Axes along local y, as parry builds them.
pub mod shapes {
    use super::*;

    /// Sphere of radius 1.
    pub fn sphere() -> (Sphere<f32>, parry3d::shape::Ball) {
        (Sphere::new(1.0), parry3d::shape::Ball::new(1.0))
    }

    /// Capsule of radius 0.5 around the segment from y = −1 to y = 1.
    pub fn capsule() -> (Capsule<f32>, parry3d::shape::Capsule) {
        (
            Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5),
            parry3d::shape::Capsule::new_y(1.0, 0.5),
        )
    }

    /// Cylinder of radius 0.8 from y = −1 to y = 1.
    pub fn cylinder() -> (Cylinder<f32>, parry3d::shape::Cylinder) {
        (
            Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.8),
            parry3d::shape::Cylinder::new(1.0, 0.8),
        )
    }

    /// Cone with apex at y = 1 and a base of radius 0.8 at y = −1.
    pub fn cone() -> (Cone<f32>, parry3d::shape::Cone) {
        (
            Cone::from_points(Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, -1.0, 0.0), 0.8),
            parry3d::shape::Cone::new(1.0, 0.8),
        )
    }

    /// Box with half extents (1, 0.6, 0.8).
    pub fn cuboid() -> (Cuboid<f32>, parry3d::shape::Cuboid) {
        (
            Cuboid::new(Vector3::new(1.0, 0.6, 0.8)),
            parry3d::shape::Cuboid::new(Vector::new(1.0, 0.6, 0.8)),
        )
    }

    /// Ellipsoid with radii (1.2, 0.7, 0.9) (parry3d has none).
    pub fn ellipsoid() -> Ellipsoid<f32> {
        Ellipsoid::new(Vector3::new(1.2, 0.7, 0.9))
    }
}

/// The sum of the hit times, the checksum every pass returns.
fn sum_t(hit: Option<f32>) -> f32 {
    hit.unwrap_or(0.0)
}

/// A pass of geom trait calls over `rays`.
fn geom_trait_pass<S: Shape<f32> + Clone + 'static>(shape: &S, rays: &Arc<Rays>, count: usize) -> Pass {
    let (shape, rays, pose) = (shape.clone(), rays.clone(), geom_pose());
    Box::new(move || {
        let mut sum = 0.0;
        for ray in &rays.geom[..count] {
            sum += sum_t(
                black_box(&shape)
                    .ray_cast(&pose, ray, f32::MAX, true)
                    .map(|h| h.t),
            );
        }
        black_box(sum)
    })
}

/// A pass of parry3d trait calls (with normals, as geom returns them).
fn parry_trait_pass<P: RayCast + Clone + 'static>(shape: &P, rays: &Arc<Rays>, count: usize) -> Pass {
    let (shape, rays, pose) = (shape.clone(), rays.clone(), parry_pose());
    Box::new(move || {
        let mut sum = 0.0;
        for ray in &rays.parry[..count] {
            let hit = black_box(&shape).cast_ray_and_get_normal(&pose, ray, f32::MAX, true);
            sum += sum_t(hit.map(|h| h.time_of_impact));
        }
        black_box(sum)
    })
}

/// A pass of the batch cast over every ray at `pose`, on lane pack `T`.
fn batch_pass<T, S>(shape: &S, pose: Isometry3<f32>, rays: &Arc<Rays>) -> Pass
where
    T: Pack<Element = f32>,
    S: LaneShape<f32> + Shape<f32> + Clone + 'static,
{
    let (shape, rays) = (shape.clone(), rays.clone());
    let mut out = HitBatch::with_capacity(rays.batch.len());
    Box::new(move || {
        ray_cast_batch_lanes::<T, S>(black_box(&shape), &pose, &rays.batch, f32::MAX, true, &mut out);
        black_box(out.times()[0])
    })
}

/// A pass that only streams the batch's columns: reads the six ray columns
/// and writes as many bytes as a `HitBatch` holds (hit flag, t, normal,
/// feature), with one addition per ray: the memory bound of a batch cast.
fn stream_pass(rays: &Arc<Rays>) -> Pass {
    let rays = rays.clone();
    let len = rays.batch.len();
    let mut t = vec![0.0f32; len];
    let mut normal = [vec![0.0f32; len], vec![0.0f32; len], vec![0.0f32; len]];
    let mut hit = vec![false; len];
    let mut feature = vec![geom::FeatureId::Unknown; len];
    Box::new(move || {
        let [ox, oy, oz] = rays.batch.origins();
        let [dx, dy, dz] = rays.batch.dirs();
        for i in 0..len {
            let sum = ox[i] + oy[i] + oz[i] + dx[i] + dy[i] + dz[i];
            t[i] = sum;
            normal[0][i] = ox[i];
            normal[1][i] = oy[i];
            normal[2][i] = oz[i];
            hit[i] = sum > 0.0;
            feature[i] = geom::FeatureId::Face(0);
        }
        black_box((&t, &normal, &hit, &feature));
        black_box(t[0])
    })
}

/// A pass of the parallel batch cast on a pool of `threads`.
fn par_pass<S: geom::batch::BatchShape<f32> + Sync + Send + Clone + 'static>(
    shape: &S,
    rays: &Arc<Rays>,
    pool: &Arc<rayon::ThreadPool>,
) -> Pass {
    let (shape, rays, pose, pool) = (shape.clone(), rays.clone(), geom_pose(), pool.clone());
    let mut out = HitBatch::with_capacity(rays.batch.len());
    Box::new(move || {
        pool.install(|| par_ray_cast_batch(black_box(&shape), &pose, &rays.batch, f32::MAX, true, &mut out));
        black_box(out.times()[0])
    })
}

/// Rays in the per-ray scalar group (fits in L2; large enough that the
/// branch predictor cannot learn the answers).
pub const SCALAR_RAYS: usize = 1 << 14;

/// Rays in the large groups.
pub const LARGE_RAYS: usize = 1_000_000;

/// Ray–packet pairs in the packet group.
pub const PACKET_QUERIES: usize = 1 << 12;

fn add_shape<S, P>(
    measures: &mut Vec<Measure>,
    name: &str,
    shape: &S,
    parry: Option<&P>,
    rays: &Arc<Rays>,
    pool: &Arc<rayon::ThreadPool>,
) where
    S: LaneShape<f32> + geom::batch::BatchShape<f32> + Sync + Send + Clone + 'static,
    P: RayCast + Clone + 'static,
{
    measures.push(Measure {
        name: format!("scalar/{name}"),
        baseline: None,
        items: SCALAR_RAYS,
        geom: geom_trait_pass(shape, rays, SCALAR_RAYS),
        parry: parry.map(|p| parry_trait_pass(p, rays, SCALAR_RAYS)),
    });
    let large = |variant: &str| format!("rays_1e6/{name}/{variant}");
    let len = rays.geom.len();
    measures.push(Measure {
        name: large("trait"),
        baseline: None,
        items: len,
        geom: geom_trait_pass(shape, rays, len),
        parry: parry.map(|p| parry_trait_pass(p, rays, len)),
    });
    let translated = Isometry3::translation(center().x, center().y, center().z);
    for (variant, baseline, pass) in [
        (
            "batch_x4",
            "trait",
            batch_pass::<WideF32x4, S>(shape, geom_pose(), rays),
        ),
        (
            "batch_x8",
            "trait",
            batch_pass::<WideF32x8, S>(shape, geom_pose(), rays),
        ),
        // The same rays with the rotation left out of the pose: what the
        // restart next to the shape and the two rotations cost.
        (
            "batch_x8_translation_only",
            "batch_x8",
            batch_pass::<WideF32x8, S>(shape, translated, rays),
        ),
    ] {
        measures.push(Measure {
            name: large(variant),
            baseline: Some(large(baseline)),
            items: len,
            geom: pass,
            parry: None,
        });
    }
    measures.push(Measure {
        name: large(&format!("par_{}threads", pool.current_num_threads())),
        baseline: Some(large("batch_x8")),
        items: len,
        geom: par_pass(shape, rays, pool),
        parry: None,
    });
}

/// Random packets of 8 shapes and one ray for each, the inputs of the
/// packet group.
struct PacketInputs {
    rays: Vec<Ray<f32>>,
    parry_rays: Vec<parry3d::query::Ray>,
    centres: Vec<[Point3<f32>; 8]>,
    sizes: Vec<[f32; 8]>,
}

fn packet_inputs() -> PacketInputs {
    let mut rng = Rng::new(99);
    let mut inputs = PacketInputs {
        rays: Vec::new(),
        parry_rays: Vec::new(),
        centres: Vec::new(),
        sizes: Vec::new(),
    };
    for _ in 0..PACKET_QUERIES {
        let centres = [(); 8].map(|_| Point3::from(rng.direction_f32() * rng.range_f32(0.0, 4.0)));
        let sizes = [(); 8].map(|_| rng.range_f32(0.3, 1.0));
        let origin = Point3::from(rng.direction_f32() * 8.0);
        let ray = Ray::new(origin, Point3::from(rng.direction_f32() * 3.0) - origin);
        inputs.parry_rays.push(to_parry(&ray));
        inputs.rays.push(ray);
        inputs.centres.push(centres);
        inputs.sizes.push(sizes);
    }
    inputs
}

fn packet_measures(measures: &mut Vec<Measure>) {
    let inputs = Arc::new(packet_inputs());
    let translation = |c: &Point3<f32>| Isometry3::translation(c.x, c.y, c.z);
    let parry_at = |c: &Point3<f32>| Pose::translation(c.x, c.y, c.z);
    let half = |s: f32| Vector3::new(s, 0.6 * s, 0.8 * s);

    macro_rules! packet_group {
        ($name:literal, $packet:expr, $geom_one:expr, $parry_one:expr) => {{
            let packets: Vec<_> = (0..PACKET_QUERIES)
                .map(|q| $packet(&inputs.centres[q], &inputs.sizes[q]))
                .collect();
            let geom_inputs = inputs.clone();
            let parry_inputs = inputs.clone();
            let packet_inputs = inputs.clone();
            measures.push(Measure {
                name: concat!("packet/", $name, "/trait_x8").to_string(),
                baseline: None,
                items: PACKET_QUERIES,
                geom: Box::new(move || {
                    let mut sum = 0.0;
                    for q in 0..PACKET_QUERIES {
                        let ray = &geom_inputs.rays[q];
                        let mut best = f32::MAX;
                        for k in 0..8 {
                            let c = &geom_inputs.centres[q][k];
                            let s = geom_inputs.sizes[q][k];
                            if let Some(hit) = $geom_one(c, s, ray) {
                                best = best.min(hit);
                            }
                        }
                        sum += black_box(best);
                    }
                    black_box(sum)
                }),
                parry: Some(Box::new(move || {
                    let mut sum = 0.0;
                    for q in 0..PACKET_QUERIES {
                        let ray = &parry_inputs.parry_rays[q];
                        let mut best = f32::MAX;
                        for k in 0..8 {
                            let c = &parry_inputs.centres[q][k];
                            let s = parry_inputs.sizes[q][k];
                            if let Some(hit) = $parry_one(c, s, ray) {
                                best = best.min(hit);
                            }
                        }
                        sum += black_box(best);
                    }
                    black_box(sum)
                })),
            });
            measures.push(Measure {
                name: concat!("packet/", $name, "/packet_x8").to_string(),
                baseline: Some(concat!("packet/", $name, "/trait_x8").to_string()),
                items: PACKET_QUERIES,
                geom: Box::new(move || {
                    let mut sum = 0.0;
                    for (packet, ray) in packets.iter().zip(&packet_inputs.rays) {
                        sum += black_box(packet)
                            .ray_cast(ray, f32::MAX, true)
                            .map_or(0.0, |(_, h)| h.t);
                    }
                    black_box(sum)
                }),
                parry: None,
            });
        }};
    }

    packet_group!(
        "sphere",
        |c: &[Point3<f32>; 8], s: &[f32; 8]| SpherePacket::<WideF32x8>::new(&std::array::from_fn::<_, 8, _>(
            |k| (c[k], Sphere::new(s[k]))
        )),
        |c: &Point3<f32>, s: f32, ray: &Ray<f32>| Sphere::new(s)
            .ray_cast(&translation(c), ray, f32::MAX, true)
            .map(|h| h.t),
        |c: &Point3<f32>, s: f32, ray: &parry3d::query::Ray| parry3d::shape::Ball::new(s)
            .cast_ray_and_get_normal(&parry_at(c), ray, f32::MAX, true)
            .map(|h| h.time_of_impact)
    );
    packet_group!(
        "capsule",
        |c: &[Point3<f32>; 8], s: &[f32; 8]| CapsulePacket::<WideF32x8>::new(
            &std::array::from_fn::<_, 8, _>(|k| Capsule::from_points(
                c[k] - Vector3::y() * s[k],
                c[k] + Vector3::y() * s[k],
                0.5 * s[k]
            ))
        ),
        |c: &Point3<f32>, s: f32, ray: &Ray<f32>| Capsule::from_points(
            c - Vector3::y() * s,
            c + Vector3::y() * s,
            0.5 * s
        )
        .ray_cast(&Isometry3::identity(), ray, f32::MAX, true)
        .map(|h| h.t),
        |c: &Point3<f32>, s: f32, ray: &parry3d::query::Ray| parry3d::shape::Capsule::new(
            Vector::new(c.x, c.y - s, c.z),
            Vector::new(c.x, c.y + s, c.z),
            0.5 * s
        )
        .cast_ray_and_get_normal(&Pose::IDENTITY, ray, f32::MAX, true)
        .map(|h| h.time_of_impact)
    );
    packet_group!(
        "box",
        |c: &[Point3<f32>; 8], s: &[f32; 8]| CuboidPacket::<WideF32x8>::new(&std::array::from_fn::<_, 8, _>(
            |k| (c[k], Cuboid::new(half(s[k])))
        )),
        |c: &Point3<f32>, s: f32, ray: &Ray<f32>| Cuboid::new(half(s))
            .ray_cast(&translation(c), ray, f32::MAX, true)
            .map(|h| h.t),
        |c: &Point3<f32>, s: f32, ray: &parry3d::query::Ray| {
            let h = half(s);
            parry3d::shape::Cuboid::new(Vector::new(h.x, h.y, h.z))
                .cast_ray_and_get_normal(&parry_at(c), ray, f32::MAX, true)
                .map(|h| h.time_of_impact)
        }
    );
}

/// Every measure, in report order: the per-ray scalar group, the 10⁶-ray
/// group (trait, 4 and 8 lanes, `threads` threads) per shape, then the
/// packet group. Inputs are built here, outside any timing.
pub fn measures(threads: usize) -> Vec<Measure> {
    let rays = Arc::new(random_rays(LARGE_RAYS, 1));
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool"),
    );
    let mut measures = Vec::new();
    let (sphere, ball) = shapes::sphere();
    add_shape(&mut measures, "sphere", &sphere, Some(&ball), &rays, &pool);
    let (capsule, parry_capsule) = shapes::capsule();
    add_shape(
        &mut measures,
        "capsule",
        &capsule,
        Some(&parry_capsule),
        &rays,
        &pool,
    );
    let (cylinder, parry_cylinder) = shapes::cylinder();
    add_shape(
        &mut measures,
        "cylinder",
        &cylinder,
        Some(&parry_cylinder),
        &rays,
        &pool,
    );
    let (cone, parry_cone) = shapes::cone();
    add_shape(&mut measures, "cone", &cone, Some(&parry_cone), &rays, &pool);
    let (cuboid, parry_cuboid) = shapes::cuboid();
    add_shape(&mut measures, "box", &cuboid, Some(&parry_cuboid), &rays, &pool);
    add_shape(
        &mut measures,
        "ellipsoid",
        &shapes::ellipsoid(),
        None::<&parry3d::shape::Ball>,
        &rays,
        &pool,
    );
    measures.push(Measure {
        name: "rays_1e6/memory/stream_only".to_string(),
        baseline: None,
        items: rays.geom.len(),
        geom: stream_pass(&rays),
        parry: None,
    });
    packet_measures(&mut measures);
    terrain::measures(&mut measures);
    pairs::measures(&mut measures);
    mesh::measures(&mut measures, &pool);
    frame::measures(&mut measures);
    measures
}

/// The fraction of `rays` that hit `shape` at the benchmark pose (to check
/// the inputs are about half hits).
pub fn hit_fraction<S: Shape<f32>>(shape: &S, rays: &Rays) -> f64 {
    let pose = geom_pose();
    let hits = rays
        .geom
        .iter()
        .filter(|ray| shape.ray_cast(&pose, ray, f32::MAX, true).is_some())
        .count();
    hits as f64 / rays.geom.len() as f64
}

/// The terrain of issue 5, through geom's and parry3d's heightfields: the
/// same 1025 × 1025 samples (1 unit per cell, centred on the origin), the
/// same heights and the same diagonals, checked by comparing ray hits
/// before any timing.
pub mod terrain {
    use super::*;
    use geom::terrain::contact::contact_heightfield_capsule;
    use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};

    /// Samples per side.
    pub const SAMPLES: usize = 1025;

    /// Capsule poses in the contact measure.
    pub const POSES: usize = 1000;

    /// The terrain's height at world `(x, z)`.
    pub fn height(x: f64, z: f64) -> f64 {
        3.0 * (0.05 * x).sin() * (0.07 * z).cos()
            + 1.5 * (0.13 * x + 0.7).sin() * (0.11 * z).sin()
            + 0.5 * (0.31 * x + 0.23 * z).sin()
    }

    /// Both heightfields. Sample `(i, j)` sits at `x = −512 + i`,
    /// `z = −512 + j`. geom stores it at `heights[i·1025 + j]` (rows along
    /// x); parry3d's `Array2` is column-major with rows along z and
    /// columns along x, so `heights_zx[(j, i)]` is at `j + i·1025`: the
    /// same vector. parry splits each cell from `(x_i, z_j+1)` to
    /// `(x_i+1, z_j)` (no `ZIGZAG_SUBDIVISION`), which is geom's flipped
    /// diagonal: every geom cell is flipped.
    pub fn fields() -> (HeightField<f32>, parry3d::shape::HeightField) {
        let half = (SAMPLES - 1) as f64 / 2.0;
        let heights: Vec<f32> = (0..SAMPLES * SAMPLES)
            .map(|k| height((k / SAMPLES) as f64 - half, (k % SAMPLES) as f64 - half) as f32)
            .collect();
        let mut desc = HeightFieldDesc::new(
            Point3::new(-half as f32, 0.0, -half as f32),
            [1.0, 1.0],
            SAMPLES,
            SAMPLES,
            heights.clone(),
        );
        desc.flipped_cells = (0..(SAMPLES - 1) * (SAMPLES - 1)).collect();
        let geom_field = HeightField::try_from_desc(desc).expect("a valid terrain");
        let extent = (SAMPLES - 1) as f32;
        let parry_field = parry3d::shape::HeightField::new(
            parry3d::utils::Array2::new(SAMPLES, SAMPLES, heights),
            Vector::new(extent, 1.0, extent),
        );
        (geom_field, parry_field)
    }

    /// `count` rays from y = 20 over `|x|, |z| < 400`, at up to 69° from
    /// straight down (uniform angle, uniform azimuth), unit directions.
    pub fn rays(count: usize, seed: u64) -> Rays {
        let mut rng = Rng::new(seed);
        let max_angle = 69f32.to_radians();
        let geom: Vec<Ray<f32>> = (0..count)
            .map(|_| {
                let origin = Point3::new(rng.range_f32(-400.0, 400.0), 20.0, rng.range_f32(-400.0, 400.0));
                let (angle, azimuth) = (
                    rng.range_f32(0.0, max_angle),
                    rng.range_f32(0.0, std::f32::consts::TAU),
                );
                let dir = Vector3::new(
                    angle.sin() * azimuth.cos(),
                    -angle.cos(),
                    angle.sin() * azimuth.sin(),
                );
                Ray::new(origin, dir)
            })
            .collect();
        Rays {
            batch: RayBatch::from_rays(&geom),
            parry: geom.iter().map(to_parry).collect(),
            geom,
        }
    }

    /// The capsule: radius 0.5 around y ∈ [−1, 1] (half-height 1).
    pub fn capsule() -> (Capsule<f32>, parry3d::shape::Capsule) {
        super::shapes::capsule()
    }

    /// `POSES` capsule poses over `|x|, |z| < 400`, random orientations,
    /// each lowered until geom's deepest contact is a random depth in
    /// `[0, 0.2]` (three corrections along y, with a 3-unit margin so a
    /// capsule still apart reports its gap).
    pub fn poses(field: &HeightField<f32>) -> Vec<Isometry3<f32>> {
        let mut rng = Rng::new(5);
        let (capsule, _) = capsule();
        let mut out = ContactManifolds::new();
        (0..POSES)
            .map(|_| {
                let (x, z) = (rng.range_f32(-400.0, 400.0), rng.range_f32(-400.0, 400.0));
                let axis = geom::nalgebra::Unit::new_normalize(rng.direction_f32());
                let rotation =
                    UnitQuaternion::from_axis_angle(&axis, rng.range_f32(0.0, std::f32::consts::PI));
                let target = rng.range_f32(0.0, 0.2);
                let mut y = field.surface_y_at(x, z).expect("inside the terrain") + 2.0;
                for _ in 0..4 {
                    let pose = Isometry3::from_parts(Translation3::new(x, y, z), rotation);
                    out.clear();
                    contact_heightfield_capsule(
                        field,
                        &Isometry3::identity(),
                        &capsule,
                        &pose,
                        3.0,
                        &mut out,
                    );
                    let deepest = out
                        .points()
                        .map(|(_, p)| p.depth)
                        .fold(f32::NEG_INFINITY, f32::max);
                    y += if deepest.is_finite() {
                        deepest - target
                    } else {
                        -1.0
                    };
                }
                Isometry3::from_parts(Translation3::new(x, y, z), rotation)
            })
            .collect()
    }

    /// Panics unless geom and parry3d see the same surface: the first
    /// `count` rays hit both or neither, at times within 10⁻³ (relative).
    fn check_same_surface(
        geom_field: &HeightField<f32>,
        parry_field: &parry3d::shape::HeightField,
        rays: &Rays,
    ) {
        let pose = Isometry3::identity();
        for (k, (ray, parry_ray)) in rays.geom.iter().zip(&rays.parry).take(2000).enumerate() {
            let ours = geom_field.ray_cast(&pose, ray, f32::MAX, true).map(|h| h.t);
            let theirs = parry_field
                .cast_ray_and_get_normal(&Pose::IDENTITY, parry_ray, f32::MAX, true)
                .map(|h| h.time_of_impact);
            let same = match (ours, theirs) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-3 * (1.0 + a.abs()),
                (None, None) => true,
                _ => false,
            };
            assert!(same, "terrain ray {k}: geom {ours:?}, parry3d {theirs:?}");
        }
    }

    /// `terrain/rays_1e6/trait` (10⁶ rays, the `Shape` trait against
    /// parry's `cast_ray_and_get_normal`) and `terrain/capsule_contact/cold`
    /// (one contact query per pose, geom's `contact_heightfield_capsule`
    /// with a reused output buffer against parry's `contact_manifolds` with
    /// a fresh workspace and an emptied manifold list: the first contact of
    /// a pair), both with margin (parry: prediction) 0.
    pub fn measures(measures: &mut Vec<Measure>) {
        let (geom_field, parry_field) = fields();
        let rays = Arc::new(rays(LARGE_RAYS, 3));
        check_same_surface(&geom_field, &parry_field, &rays);
        let geom_field = Arc::new(geom_field);
        let parry_field = Arc::new(parry_field);
        let (geom_rays, parry_rays) = (rays.clone(), rays.clone());
        let (gf, pf) = (geom_field.clone(), parry_field.clone());
        measures.push(Measure {
            name: "terrain/rays_1e6/trait".to_string(),
            baseline: None,
            items: rays.geom.len(),
            geom: Box::new(move || {
                let pose = Isometry3::identity();
                let mut sum = 0.0;
                for ray in &geom_rays.geom {
                    sum += sum_t(black_box(&*gf).ray_cast(&pose, ray, f32::MAX, true).map(|h| h.t));
                }
                black_box(sum)
            }),
            parry: Some(Box::new(move || {
                let mut sum = 0.0;
                for ray in &parry_rays.parry {
                    let hit = black_box(&*pf).cast_ray_and_get_normal(&Pose::IDENTITY, ray, f32::MAX, true);
                    sum += sum_t(hit.map(|h| h.time_of_impact));
                }
                black_box(sum)
            })),
        });
        let poses = Arc::new(poses(&geom_field));
        let parry_poses: Vec<Pose> = poses.iter().map(pose_to_parry).collect();
        let (capsule, parry_capsule) = capsule();
        let mut out = ContactManifolds::new();
        let geom_poses = poses.clone();
        let gf = geom_field.clone();
        let pf = parry_field.clone();
        let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
        measures.push(Measure {
            name: "terrain/capsule_contact/cold".to_string(),
            baseline: None,
            items: poses.len(),
            geom: Box::new(move || {
                let mut sum = 0.0;
                for pose in geom_poses.iter() {
                    out.clear();
                    contact_heightfield_capsule(&gf, &Isometry3::identity(), &capsule, pose, 0.0, &mut out);
                    sum += out.points().map(|(_, p)| p.depth).sum::<f32>();
                }
                black_box(sum)
            }),
            parry: Some(Box::new(move || {
                let mut sum = 0.0;
                for pose in &parry_poses {
                    manifolds.clear();
                    let mut workspace = None;
                    let _ = DefaultQueryDispatcher.contact_manifolds(
                        pose,
                        &*pf,
                        &parry_capsule,
                        0.0,
                        &mut manifolds,
                        &mut workspace,
                    );
                    sum += manifolds
                        .iter()
                        .flat_map(|m| m.points.iter())
                        .map(|p| -p.dist)
                        .sum::<f32>();
                }
                black_box(sum)
            })),
        });
    }
}
