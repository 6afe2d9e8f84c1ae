//! Shared checks for the shape unit tests: lanes against scalars, ulps, and
//! the workspace's test generator with f32-rounded draws (so failures
//! reproduce exactly).

use geom_core::{Lane, LaneShape, Ray, Real, Shape};
use nalgebra::{Point3, Vector3};
use simba::simd::{WideF32x4, WideF32x8, WideF64x4};

/// The shared test generator ([`geom_random::Rng`]) with draws rounded to
/// `f32`, so that both precisions see the same values.
pub struct TestRng(geom_random::Rng);

impl TestRng {
    pub fn new(seed: u64) -> Self {
        TestRng(geom_random::Rng::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `[lo, hi)`, rounded to f32 so both precisions see the
    /// same value.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.range(lo, hi) as f32 as f64
    }

    pub fn vector(&mut self, half_width: f64) -> Vector3<f64> {
        Vector3::new(
            self.uniform(-half_width, half_width),
            self.uniform(-half_width, half_width),
            self.uniform(-half_width, half_width),
        )
    }
}

/// Distance between `a` and `b` in units of the f32 spacing at `b` (an
/// f64 reference).
pub fn ulp_distance_f32(a: f32, b: f64) -> f64 {
    let spacing = (b as f32).abs().max(f32::MIN_POSITIVE);
    let ulp = (f32::from_bits(spacing.to_bits() + 1) - spacing) as f64;
    (a as f64 - b).abs() / ulp
}

/// `|value − reference|` in f32 ulps at `max(|reference|, floor)`: the
/// error measured at the scale the inputs carry.
pub fn ulps_at_scale(value: f32, reference: f64, floor: f64) -> f64 {
    let magnitude = reference.abs().max(floor) as f32;
    let ulp = (f32::from_bits(magnitude.to_bits() + 1) - magnitude) as f64;
    (value as f64 - reference).abs() / ulp
}

/// The 99th percentile and the maximum of a list of ulp errors.
pub fn p99_and_max(mut errors: Vec<f64>) -> (f64, f64) {
    assert!(!errors.is_empty());
    errors.sort_by(f64::total_cmp);
    let p99 = errors[(errors.len() - 1) * 99 / 100];
    (p99, errors[errors.len() - 1])
}

/// The worst f32 closest-point error against f64 on the same f32 inputs, in
/// ulps of the largest coordinate involved (the query and `defining`
/// points), over 4000 queries around `centre` (half within 2, half within 50),
/// solid and hollow.
pub fn worst_closest_point_ulps<S32: Shape<f32>, S64: Shape<f64>>(
    shape32: &S32,
    shape64: &S64,
    centre: Point3<f32>,
    defining: &[Point3<f32>],
    seed: u64,
) -> f64 {
    let mut rng = TestRng::new(seed);
    let mut worst: f64 = 0.0;
    for i in 0..4000 {
        let spread = if i % 2 == 0 { 2.0 } else { 50.0 };
        let query = centre + rng.vector(spread).cast::<f32>();
        for solid in [true, false] {
            let p32 = shape32.closest_point_local(&query, solid).unwrap();
            let p64 = shape64.closest_point_local(&query.cast(), solid).unwrap();
            let largest = defining
                .iter()
                .chain(std::iter::once(&query))
                .flat_map(|p| p.iter().map(|c| c.abs()))
                .fold(0.0f32, f32::max);
            let ulp = (f32::from_bits(largest.to_bits() + 1) - largest) as f64;
            worst = worst.max((p32.point.cast::<f64>() - p64.point).amax() / ulp);
        }
    }
    worst
}

fn pack<T: Lane>(values: &[T::Element]) -> T {
    let mut packed = T::splat(values[0]);
    for (i, v) in values.iter().enumerate() {
        packed.replace(i, *v);
    }
    packed
}

fn check_lanes<N: Real, T: Lane<Element = N>, S: LaneShape<N>>(shape: &S, rays: &[(Ray<N>, N)], solid: bool) {
    for chunk in rays.chunks_exact(T::LANES) {
        let origin = Point3::from(Vector3::from_fn(|k, _| {
            pack::<T>(&chunk.iter().map(|(r, _)| r.origin[k]).collect::<Vec<_>>())
        }));
        let dir =
            Vector3::from_fn(|k, _| pack::<T>(&chunk.iter().map(|(r, _)| r.dir[k]).collect::<Vec<_>>()));
        let max_t = pack::<T>(&chunk.iter().map(|(_, m)| *m).collect::<Vec<_>>());
        let lane_hits = shape.ray_cast_lanes::<T>(&Ray::new(origin, dir), max_t, solid);
        let lane_projections = shape.project_point_lanes::<T>(&origin);
        for (i, (ray, max_t)) in chunk.iter().enumerate() {
            let scalar = shape.ray_cast_lanes::<N>(ray, *max_t, solid).into_hit();
            assert_eq!(
                lane_hits.extract(i),
                scalar,
                "lane {i} of {} differs for {ray:?}",
                T::LANES
            );
            let scalar = shape
                .project_point_lanes::<N>(&ray.origin)
                .into_projection(&ray.origin, solid);
            assert_eq!(
                lane_projections.extract(i, &origin, solid),
                scalar,
                "projection lane {i} differs for {:?}",
                ray.origin
            );
        }
    }
}

fn random_rays<N: Real>(rng: &mut TestRng, scale: f64, count: usize) -> Vec<(Ray<N>, N)> {
    (0..count)
        .map(|i| {
            let origin = Point3::from(rng.vector(3.0 * scale));
            // Mix in axis-parallel, zero and tiny directions and max_t cut-offs.
            let dir = match i % 16 {
                0 => Vector3::zeros(),
                1 => Vector3::new(0.0, rng.uniform(-1.0, 1.0), 0.0),
                2 => Vector3::new(0.0, 0.0, rng.uniform(-1.0, 1.0)),
                3 => rng.vector(1e-3),
                _ => rng.vector(1.0),
            };
            let target_dir = if i % 2 == 0 {
                -origin.coords + rng.vector(scale)
            } else {
                dir
            };
            let dir = if i % 16 < 4 { dir } else { target_dir };
            let max_t = if i % 5 == 0 {
                rng.uniform(0.0, 2.0)
            } else {
                f64::INFINITY
            };
            let convert = |x: f64| nalgebra::convert::<f64, N>(x);
            (Ray::new(origin.map(convert), dir.map(convert)), convert(max_t))
        })
        .collect()
}

/// Checks `WideF32x4`, `WideF32x8` (against the f32 scalar path) and
/// `WideF64x4` (against f64) bit for bit, on hits, misses, inside origins,
/// zero directions and max_t cut-offs, for both solid settings.
pub fn assert_lanes_match_scalar<S32: LaneShape<f32>, S64: LaneShape<f64>>(
    shape32: &S32,
    shape64: &S64,
    scale: f64,
) {
    let mut rng = TestRng::new(7);
    let rays32 = random_rays::<f32>(&mut rng, scale, 2048);
    let rays64 = random_rays::<f64>(&mut rng, scale, 2048);
    for solid in [true, false] {
        check_lanes::<f32, WideF32x4, _>(shape32, &rays32, solid);
        check_lanes::<f32, WideF32x8, _>(shape32, &rays32, solid);
        check_lanes::<f64, WideF64x4, _>(shape64, &rays64, solid);
    }
}
