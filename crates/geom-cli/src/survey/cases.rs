//! The inputs of `geom precision`: random shapes and queries per category,
//! every number exactly representable in `f32`, so `f32`, `f64` and the
//! double-double reference see the same geometry.

use geom::nalgebra::{Quaternion, Unit};
use geom::prelude::*;
use geom::{Capsule, Cone, Cuboid, Cylinder, DoubleDouble, Ellipsoid, HalfSpace, Segment, Triangle};

/// The workspace's generator: the same cases for a given seed everywhere.
pub use geom_random::Rng;

/// A random quaternion `[x, y, z, w]`, unit to f32 rounding.
pub fn quaternion(rng: &mut Rng) -> [f64; 4] {
    let v = [0; 4].map(|_| rng.range(-1.0, 1.0));
    let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    v.map(|c| f32x(c / n))
}

/// `x` rounded to the nearest `f32`, back in `f64`.
pub fn f32x(x: f64) -> f64 {
    x as f32 as f64
}

fn p32x(p: Point3<f64>) -> Point3<f64> {
    p.map(f32x)
}

/// The shapes surveyed, in report order.
pub const KINDS: [&str; 9] = [
    "sphere",
    "capsule",
    "cylinder",
    "cone",
    "ellipsoid",
    "cuboid",
    "halfspace",
    "triangle",
    "segment",
];

/// Ray-cast categories, in report order.
pub const RAY_CATEGORIES: [&str; 8] = [
    "generic",
    "far_small",
    "offset",
    "grazing",
    "axis_parallel",
    "inside",
    "max_t",
    "high_aspect",
];

/// Closest-point categories, in report order.
pub const CLOSEST_CATEGORIES: [&str; 6] = [
    "generic",
    "far_small",
    "offset",
    "near_surface",
    "inside",
    "high_aspect",
];

/// Whether `category` applies to shape `kind` (high-aspect is for the
/// ellipsoid; a ray hits a segment only on a set of measure zero; thin
/// shapes have no inside).
pub fn applies(kind: &str, category: &str, ray: bool) -> bool {
    match category {
        "high_aspect" => kind == "ellipsoid",
        "inside" => !matches!(kind, "triangle" | "segment"),
        _ => !(ray && kind == "segment"),
    }
}

/// A shape in world coordinates, every number exact in `f32`.
#[derive(Clone, Debug)]
pub enum World {
    /// Centre, radius.
    Sphere(Point3<f64>, f64),
    /// Segment ends, radius.
    Capsule(Point3<f64>, Point3<f64>, f64),
    /// Cap centres, radius.
    Cylinder(Point3<f64>, Point3<f64>, f64),
    /// Apex, base centre, base radius.
    Cone(Point3<f64>, Point3<f64>, f64),
    /// Centre, radii, rotation `[x, y, z, w]`.
    Ellipsoid(Point3<f64>, Vector3<f64>, [f64; 4]),
    /// Centre, half extents, rotation `[x, y, z, w]`.
    Cuboid(Point3<f64>, Vector3<f64>, [f64; 4]),
    /// `n · x <= d`.
    HalfSpace(Vector3<f64>, f64),
    /// Corners.
    Triangle(Point3<f64>, Point3<f64>, Point3<f64>),
    /// Ends.
    Segment(Point3<f64>, Point3<f64>),
    /// A shape given around its local origin, placed by a rotation
    /// `[x, y, z, w]` and a translation: the pose path every shape's world
    /// queries take (rotation matrix, restart next to the shape).
    Posed(Box<World>, Point3<f64>, [f64; 4]),
}

/// Kinds whose cases are placed by a random pose half the time (the
/// others are given in world coordinates, or always posed: the ellipsoid
/// and the box).
const POSED_KINDS: [&str; 6] = ["sphere", "capsule", "cylinder", "cone", "triangle", "segment"];

/// The pose of an f32-exact translation and quaternion (unit to about
/// 1e-7), taken as given in every precision: the rotation matrix divides by
/// the quaternion's own `|q|²` (`geom_core::pose::rotation_matrix`), so
/// f32, f64 and the reference all rotate by the same exact rotation, where
/// normalising first would round the quaternion differently in each and
/// charge that difference to the query.
fn pose<N: Real>(center: &Point3<f64>, q: [f64; 4]) -> Isometry3<N> {
    let c = center.map(nalgebra_convert::<N>);
    let q = q.map(nalgebra_convert::<N>);
    let rotation = Unit::new_unchecked(Quaternion::new(q[3], q[0], q[1], q[2]));
    Isometry3::from_parts(Translation3::from(c.coords), rotation)
}

fn nalgebra_convert<N: Real>(x: f64) -> N {
    geom::nalgebra::convert::<f64, N>(x)
}

impl World {
    /// A random shape of `kind` with centre `center` and size about `size`;
    /// `aspect` stretches the ellipsoid's radii up to that ratio.
    pub fn random(kind: &str, rng: &mut Rng, center: Point3<f64>, size: f64, aspect: f64) -> World {
        if POSED_KINDS.contains(&kind) && rng.unit() < 0.5 {
            let local = World::placed(kind, rng, Point3::origin(), size, aspect);
            return World::Posed(Box::new(local), p32x(center), quaternion(rng));
        }
        World::placed(kind, rng, center, size, aspect)
    }

    /// [`World::random`] in world coordinates (no pose of its own beyond
    /// the ellipsoid's and the box's).
    fn placed(kind: &str, rng: &mut Rng, center: Point3<f64>, size: f64, aspect: f64) -> World {
        let c = p32x(center);
        let mut around = |k: f64| p32x(center + rng.direction() * (k * size));
        match kind {
            "sphere" => World::Sphere(c, f32x(size)),
            "capsule" => World::Capsule(around(0.8), around(0.8), f32x(0.4 * size)),
            "cylinder" => World::Cylinder(around(0.8), around(0.8), f32x(0.5 * size)),
            "cone" => World::Cone(around(0.8), around(0.8), f32x(0.6 * size)),
            "ellipsoid" => {
                let radii = if aspect > 1.0 {
                    // One axis `aspect` times shorter than the others.
                    let mut radii = Vector3::repeat(1.0);
                    radii[(rng.unit() * 3.0) as usize] = 1.0 / aspect;
                    radii
                } else {
                    Vector3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0))
                };
                World::Ellipsoid(c, (radii * size).map(f32x), quaternion(rng))
            }
            "cuboid" => {
                let half = Vector3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0));
                World::Cuboid(c, (half * size).map(f32x), quaternion(rng))
            }
            "halfspace" => {
                let n = (rng.direction() * rng.range(0.5, 2.0)).map(f32x);
                World::HalfSpace(n, f32x(n.dot(&c.coords)))
            }
            "triangle" => World::Triangle(around(1.0), around(1.0), around(1.0)),
            _ => World::Segment(around(1.0), around(1.0)),
        }
    }

    /// The shape and its pose at precision `N`, as `geom query` builds them.
    pub fn build<N: Real>(&self) -> (Box<dyn Shape<N>>, Isometry3<N>) {
        let s = nalgebra_convert::<N>;
        let p = |p: &Point3<f64>| p.map(s);
        let v = |v: &Vector3<f64>| v.map(s);
        let id = Isometry3::identity();
        match self {
            World::Sphere(c, r) => (Box::new(Sphere::new(s(*r))), pose(c, [0.0, 0.0, 0.0, 1.0])),
            World::Capsule(a, b, r) => (Box::new(Capsule::from_points(p(a), p(b), s(*r))), id),
            World::Cylinder(a, b, r) => (Box::new(Cylinder::from_points(p(a), p(b), s(*r))), id),
            World::Cone(a, b, r) => (Box::new(Cone::from_points(p(a), p(b), s(*r))), id),
            World::Ellipsoid(c, radii, q) => (Box::new(Ellipsoid::new(v(radii))), pose(c, *q)),
            World::Cuboid(c, half, q) => (Box::new(Cuboid::new(v(half))), pose(c, *q)),
            World::HalfSpace(n, d) => (Box::new(HalfSpace::new(v(n), s(*d))), id),
            World::Triangle(a, b, c) => (Box::new(Triangle::new(p(a), p(b), p(c))), id),
            World::Segment(a, b) => (Box::new(Segment::new(p(a), p(b))), id),
            World::Posed(local, c, q) => {
                let (shape, local_pose) = local.build::<N>();
                (shape, pose::<N>(c, *q) * local_pose)
            }
        }
    }

    /// A point at the middle of the shape.
    pub fn center(&self) -> Point3<f64> {
        match self {
            World::Sphere(c, _) | World::Ellipsoid(c, _, _) | World::Cuboid(c, _, _) => *c,
            World::Capsule(a, b, _)
            | World::Cylinder(a, b, _)
            | World::Cone(a, b, _)
            | World::Segment(a, b) => geom::nalgebra::center(a, b),
            World::HalfSpace(n, d) => Point3::from(n * (*d / n.norm_squared())),
            World::Triangle(a, b, c) => Point3::from((a.coords + b.coords + c.coords) / 3.0),
            World::Posed(local, c, q) => pose::<f64>(c, *q) * local.center(),
        }
    }
}

/// One ray-cast query.
#[derive(Clone, Debug)]
pub struct RayCase {
    /// The shape.
    pub world: World,
    /// The shape's size (errors are also reported in units of it).
    pub size: f64,
    /// Ray origin (f32-exact).
    pub origin: Point3<f64>,
    /// Ray direction (f32-exact, any length).
    pub dir: Vector3<f64>,
    /// Cut-off, in units of `dir` (f32-exact or infinite).
    pub max_t: f64,
    /// Solid or hollow.
    pub solid: bool,
}

/// One closest-point query (on the boundary: `solid = false`).
#[derive(Clone, Debug)]
pub struct ClosestCase {
    /// The shape.
    pub world: World,
    /// The shape's size.
    pub size: f64,
    /// The query point (f32-exact).
    pub point: Point3<f64>,
}

/// The reference (double-double) closest boundary point, in `f64`.
fn surface_point(world: &World, toward: &Point3<f64>) -> Point3<f64> {
    let (shape, pose) = world.build::<DoubleDouble>();
    let query = toward.map(DoubleDouble::from_f64);
    shape
        .closest_point(&pose, &query, false)
        .map_or(*toward, |p| p.point.map(DoubleDouble::to_f64))
}

fn placement(category: &str, rng: &mut Rng) -> (Point3<f64>, f64) {
    match category {
        "far_small" => (
            Point3::from(rng.direction() * 10f64.powf(rng.range(3.0, 5.0))),
            rng.range(0.01, 1.0),
        ),
        "offset" => (
            Point3::from(rng.direction() * 10f64.powf(rng.range(4.0, 6.0)) + rng.direction() * 2.0),
            1.0,
        ),
        _ => (Point3::from(rng.direction() * 2.0), 1.0),
    }
}

/// A random ray case of `category` for shape `kind`.
pub fn ray_case(kind: &str, category: &str, rng: &mut Rng) -> RayCase {
    let (center, size) = placement(category, rng);
    let aspect = if category == "high_aspect" {
        10f64.powf(rng.range(1.0, 3.0))
    } else {
        1.0
    };
    let world = World::random(kind, rng, center, size, aspect);
    let middle = world.center();
    let aim = |rng: &mut Rng| middle + rng.direction() * (0.5 * size);
    let (origin, dir, max_t, solid) = match category {
        "far_small" => {
            // The camera near the origin, the shape far away.
            let origin = Point3::from(rng.direction() * rng.range(0.0, 1.0));
            let dir = aim(rng) - origin;
            (origin, dir, f64::INFINITY, true)
        }
        "grazing" => {
            // Tangent to the surface at a random point, offset along the
            // normal by up to 1e-4 of the size either way.
            let on = surface_point(&world, &(middle + rng.direction() * (3.0 * size)));
            let normal = (on - surface_point(&world, &(on - rng.direction() * (1e-3 * size)))).normalize();
            let normal = if normal.iter().all(|c| c.is_finite()) {
                normal
            } else {
                rng.direction()
            };
            let tangent = normal.cross(&rng.direction()).normalize();
            let offset = normal * (rng.range(-1e-4, 1e-4) * size);
            let distance = rng.range(2.0, 6.0) * size;
            let origin = on + offset - tangent * distance;
            (
                origin,
                tangent * rng.range(0.5, 2.0),
                f64::INFINITY,
                rng.unit() < 0.5,
            )
        }
        "axis_parallel" => {
            let axis = (rng.unit() * 3.0) as usize;
            let mut dir = Vector3::zeros();
            dir[axis] = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
            let mut origin = aim(rng);
            origin[axis] -= dir[axis] * rng.range(3.0, 6.0) * size;
            (origin, dir, f64::INFINITY, true)
        }
        "inside" => {
            // The middle (below the plane for the half-space), or a point
            // on the surface rounded to f32.
            let origin = if rng.unit() < 0.5 {
                match &world {
                    World::HalfSpace(n, _) => middle - n.normalize() * rng.range(0.5, 2.0),
                    _ => middle,
                }
            } else {
                surface_point(&world, &(middle + rng.direction() * (3.0 * size)))
            };
            (origin, rng.direction(), f64::INFINITY, rng.unit() < 0.5)
        }
        "max_t" => {
            // The cut-off within 1e-3 of the reference hit.
            let origin = p32x(middle + rng.direction() * rng.range(2.0, 6.0) * size);
            let dir = (aim(rng) - origin).map(f32x);
            let (shape, pose) = world.build::<DoubleDouble>();
            let ray = Ray::new(
                origin.map(DoubleDouble::from_f64),
                dir.map(DoubleDouble::from_f64),
            );
            let t = shape
                .ray_cast(&pose, &ray, DoubleDouble::from_f64(f64::INFINITY), true)
                .map_or(1.0, |h| h.t.to_f64());
            (origin, dir, t * (1.0 + rng.range(-1e-3, 1e-3)), true)
        }
        _ => {
            // generic, offset and high_aspect: an observer a few sizes away.
            let origin = middle + rng.direction() * rng.range(2.0, 6.0) * size;
            let dir = (aim(rng) - origin) * rng.range(0.1, 4.0);
            (origin, dir, f64::INFINITY, rng.unit() < 0.5)
        }
    };
    RayCase {
        world,
        size,
        origin: p32x(origin),
        dir: dir.map(f32x),
        max_t: f32x(max_t),
        solid,
    }
}

/// A random closest-point case of `category` for shape `kind`.
pub fn closest_case(kind: &str, category: &str, rng: &mut Rng) -> ClosestCase {
    let (center, size) = placement(category, rng);
    let aspect = if category == "high_aspect" {
        10f64.powf(rng.range(1.0, 3.0))
    } else {
        1.0
    };
    let world = World::random(kind, rng, center, size, aspect);
    let middle = world.center();
    let point = match category {
        "far_small" => Point3::from(rng.direction()),
        "near_surface" => {
            let on = surface_point(&world, &(middle + rng.direction() * (2.0 * size)));
            on + rng.direction() * (1e-4 * size)
        }
        "inside" => match &world {
            World::HalfSpace(n, _) => middle - n.normalize() * rng.range(0.0, 2.0),
            _ => middle + rng.direction() * (rng.range(0.0, 0.3) * size),
        },
        _ => middle + rng.direction() * (rng.range(0.0, 3.0) * size),
    };
    ClosestCase {
        world,
        size,
        point: p32x(point),
    }
}
