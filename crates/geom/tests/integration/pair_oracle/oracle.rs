//! The independent answer for pair queries on convex shapes.
//!
//! Each shape is re-described here from its public fields and pose, with
//! its support function `h(n) = max over the shape of n·x` written from the
//! definition (nothing of geom's GJK, EPA, SAT or pair routines is used).
//! For two convex shapes `A` and `B`, the separation along a unit `n`
//! (pointing from `A` to `B`) is
//!
//! ```text
//! sep(n) = −h_A(n) − h_B(−n)
//! ```
//!
//! and the signed distance (distance when apart, minus the penetration
//! depth when overlapping) is its maximum over all unit `n`: a separating
//! plane along any `n` is a lower bound, attained by the closest points'
//! direction, or by the direction of least overlap. The oracle maximises
//! `sep` by dense sampling of the sphere of directions, then refines the
//! best few samples (and any hint direction) by Nelder–Mead.
//!
//! The checks in `main.rs` use it both ways: a reported distance may not
//! exceed what a sampled separating plane proves (`σ ≥ sep(n)` for all `n`),
//! and a reported answer must be achievable (its witness points on the
//! shapes, its depth equal to the support overlap along its own normal).

use nalgebra::{Matrix3, Point3, Vector3};

/// A convex shape in world space, described for the oracle.
#[derive(Clone, Debug)]
pub enum Body {
    Sphere {
        center: Point3<f64>,
        radius: f64,
    },
    Capsule {
        a: Point3<f64>,
        b: Point3<f64>,
        radius: f64,
    },
    Cylinder {
        p0: Point3<f64>,
        p1: Point3<f64>,
        radius: f64,
    },
    Cone {
        apex: Point3<f64>,
        base: Point3<f64>,
        radius: f64,
    },
    Ellipsoid {
        center: Point3<f64>,
        radii: Vector3<f64>,
        rotation: Matrix3<f64>,
    },
    Cuboid {
        center: Point3<f64>,
        half: Vector3<f64>,
        rotation: Matrix3<f64>,
    },
    Triangle {
        vertices: [Point3<f64>; 3],
    },
    Segment {
        a: Point3<f64>,
        b: Point3<f64>,
    },
    /// Solid where `normal · x <= offset` (`normal` unit).
    HalfSpace {
        normal: Vector3<f64>,
        offset: f64,
    },
}

/// `|n − (n·u) u|` for unit `u`: the length of `n` across the axis `u`.
fn across(n: &Vector3<f64>, u: &Vector3<f64>) -> f64 {
    (n - u * n.dot(u)).norm()
}

impl Body {
    /// The support value `h(n) = max n·x` (`n` need not be unit);
    /// `+inf` for a half-space in any direction but its normal's.
    pub fn support(&self, n: &Vector3<f64>) -> f64 {
        match self {
            Body::Sphere { center, radius } => center.coords.dot(n) + radius * n.norm(),
            Body::Capsule { a, b, radius } => a.coords.dot(n).max(b.coords.dot(n)) + radius * n.norm(),
            Body::Cylinder { p0, p1, radius } => {
                let u = (p1 - p0).normalize();
                p0.coords.dot(n).max(p1.coords.dot(n)) + radius * across(n, &u)
            }
            Body::Cone { apex, base, radius } => {
                let u = (base - apex).normalize();
                apex.coords
                    .dot(n)
                    .max(base.coords.dot(n) + radius * across(n, &u))
            }
            Body::Ellipsoid {
                center,
                radii,
                rotation,
            } => {
                let local = rotation.transpose() * n;
                center.coords.dot(n) + local.component_mul(radii).norm()
            }
            Body::Cuboid {
                center,
                half,
                rotation,
            } => {
                let local = rotation.transpose() * n;
                center.coords.dot(n) + local.abs().dot(half)
            }
            Body::Triangle { vertices } => vertices
                .iter()
                .map(|v| v.coords.dot(n))
                .fold(f64::NEG_INFINITY, f64::max),
            Body::Segment { a, b } => a.coords.dot(n).max(b.coords.dot(n)),
            Body::HalfSpace { normal, offset } => {
                let length = n.norm();
                if (n - normal * length).norm() <= 1e-12 * length {
                    offset * length
                } else {
                    f64::INFINITY
                }
            }
        }
    }

    /// The face normals and edge directions where a polytope pair's
    /// separation peaks (a box's axes, a triangle's normal and sides, a
    /// segment's direction; a cylinder's or cone's cap normal), not unit.
    fn axes(&self) -> (Vec<Vector3<f64>>, Vec<Vector3<f64>>) {
        match self {
            Body::Cuboid { rotation, .. } => {
                let columns: Vec<_> = (0..3).map(|k| rotation.column(k).into_owned()).collect();
                (columns.clone(), columns)
            }
            Body::Triangle { vertices: [a, b, c] } => {
                (vec![(b - a).cross(&(c - a))], vec![b - a, c - b, a - c])
            }
            Body::Segment { a, b } => (vec![], vec![b - a]),
            Body::Cylinder { p0, p1, .. } => (vec![p1 - p0], vec![]),
            Body::Cone { apex, base, .. } => (vec![apex - base], vec![]),
            _ => (vec![], vec![]),
        }
    }

    /// A radius of a ball about [`Body::center`] holding the shape
    /// (`inf` for a half-space).
    pub fn bounding_radius(&self) -> f64 {
        let c = self.center();
        match self {
            Body::Sphere { radius, .. } => *radius,
            Body::Capsule { a, b, radius } => (a - c).norm().max((b - c).norm()) + radius,
            Body::Cylinder { p0, p1, radius } => (p0 - c).norm().max((p1 - c).norm()) + radius,
            Body::Cone { apex, base, radius } => (apex - c).norm().max((base - c).norm() + radius),
            Body::Ellipsoid { radii, .. } => radii.amax(),
            Body::Cuboid { half, .. } => half.norm(),
            Body::Triangle { vertices } => vertices.iter().map(|v| (v - c).norm()).fold(0.0, f64::max),
            Body::Segment { a, b } => (a - c).norm().max((b - c).norm()),
            Body::HalfSpace { .. } => f64::INFINITY,
        }
    }

    /// A point inside (the centre of its defining points).
    pub fn center(&self) -> Point3<f64> {
        match self {
            Body::Sphere { center, .. } | Body::Ellipsoid { center, .. } | Body::Cuboid { center, .. } => {
                *center
            }
            Body::Capsule { a, b, .. } | Body::Segment { a, b } => nalgebra::center(a, b),
            Body::Cylinder { p0, p1, .. } => nalgebra::center(p0, p1),
            Body::Cone { apex, base, .. } => nalgebra::center(apex, base),
            Body::Triangle { vertices } => {
                Point3::from((vertices[0].coords + vertices[1].coords + vertices[2].coords) / 3.0)
            }
            Body::HalfSpace { normal, offset } => Point3::from(normal * *offset),
        }
    }

    /// The largest coordinate magnitude of the shape's defining values.
    pub fn scale(&self) -> f64 {
        let c = self.center().coords.amax();
        match self {
            Body::HalfSpace { offset, .. } => offset.abs(),
            _ => c + self.bounding_radius(),
        }
    }

    fn half_space(&self) -> Option<(Vector3<f64>, f64)> {
        match self {
            Body::HalfSpace { normal, offset } => Some((*normal, *offset)),
            _ => None,
        }
    }
}

/// A support function.
pub trait Support {
    /// `max n·x` over the set.
    fn h(&self, n: &Vector3<f64>) -> f64;
    /// A point inside the set.
    fn inner(&self) -> Point3<f64>;
}

impl Support for Body {
    fn h(&self, n: &Vector3<f64>) -> f64 {
        self.support(n)
    }
    fn inner(&self) -> Point3<f64> {
        self.center()
    }
}

/// The separation of `a` and `b` along `n` (from `a` to `b`; need not be
/// unit, it is normalised here).
pub fn separation(a: &dyn Support, b: &dyn Support, n: &Vector3<f64>) -> f64 {
    let n = n.normalize();
    -a.h(&n) - b.h(&-n)
}

/// The only contact normal (from `a` to `b`) a half-space allows, if one
/// of the bodies is one.
pub fn forced_normal(a: &Body, b: &Body) -> Option<Vector3<f64>> {
    match (a.half_space(), b.half_space()) {
        (Some((normal, _)), _) => Some(normal),
        (_, Some((normal, _))) => Some(-normal),
        _ => None,
    }
}

/// [`separation`] of two bodies where a half-space, if any, decides the
/// direction: its own normal (the only direction along which it is
/// bounded), whatever `n` is within rounding of it.
pub fn separation_bodies(a: &Body, b: &Body, n: &Vector3<f64>) -> f64 {
    match (a.half_space(), b.half_space()) {
        (Some((normal, _)), None) if n.dot(&normal) > 0.0 => separation(a, b, &normal),
        (None, Some((normal, _))) if n.dot(&normal) < 0.0 => separation(a, b, &-normal),
        _ => separation(a, b, n),
    }
}

/// Directions spread evenly over the sphere (a Fibonacci lattice).
pub fn sphere_directions(count: usize) -> Vec<Vector3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|k| {
            let y = 1.0 - 2.0 * (k as f64 + 0.5) / count as f64;
            let r = (1.0 - y * y).sqrt();
            let phi = golden * k as f64;
            Vector3::new(r * phi.cos(), y, r * phi.sin())
        })
        .collect()
}

/// A unit vector perpendicular to unit `n`.
fn perpendicular(n: &Vector3<f64>) -> Vector3<f64> {
    let helper = if n.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    n.cross(&helper).normalize()
}

/// Nelder–Mead maximisation of `f` over unit vectors near `start`, in the
/// tangent plane's coordinates; returns the best direction and value.
pub fn refine(f: &dyn Fn(&Vector3<f64>) -> f64, start: &Vector3<f64>, step: f64) -> (Vector3<f64>, f64) {
    let mut center = start.normalize();
    let mut best = f(&center);
    let mut step = step;
    // Restarts about the best point with a shrinking simplex: Nelder–Mead
    // can stall on the kinks of polytope support functions otherwise.
    for _ in 0..6 {
        let e1 = perpendicular(&center);
        let e2 = center.cross(&e1);
        let at = |x: &[f64; 2]| (center + e1 * x[0] + e2 * x[1]).normalize();
        let value = |x: &[f64; 2]| f(&at(x));
        let mut simplex = [[0.0, 0.0], [step, 0.0], [0.0, step]];
        let mut values = simplex.map(|x| value(&x));
        for _ in 0..200 {
            // Order: best (largest) first.
            let mut order = [0, 1, 2];
            order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
            simplex = order.map(|i| simplex[i]);
            values = order.map(|i| values[i]);
            let size = (0..2)
                .map(|k| {
                    (simplex[1][k] - simplex[0][k])
                        .abs()
                        .max((simplex[2][k] - simplex[0][k]).abs())
                })
                .fold(0.0, f64::max);
            if size < 1e-15 {
                break;
            }
            let centroid = [
                (simplex[0][0] + simplex[1][0]) / 2.0,
                (simplex[0][1] + simplex[1][1]) / 2.0,
            ];
            let toward = |t: f64| {
                [
                    centroid[0] + t * (simplex[2][0] - centroid[0]),
                    centroid[1] + t * (simplex[2][1] - centroid[1]),
                ]
            };
            let reflected = toward(-1.0);
            let reflected_value = value(&reflected);
            if reflected_value > values[0] {
                let expanded = toward(-2.0);
                let expanded_value = value(&expanded);
                if expanded_value > reflected_value {
                    (simplex[2], values[2]) = (expanded, expanded_value);
                } else {
                    (simplex[2], values[2]) = (reflected, reflected_value);
                }
            } else if reflected_value > values[1] {
                (simplex[2], values[2]) = (reflected, reflected_value);
            } else {
                let contracted = toward(0.5);
                let contracted_value = value(&contracted);
                if contracted_value > values[2] {
                    (simplex[2], values[2]) = (contracted, contracted_value);
                } else {
                    for k in 1..3 {
                        simplex[k] = [
                            simplex[0][0] + 0.5 * (simplex[k][0] - simplex[0][0]),
                            simplex[0][1] + 0.5 * (simplex[k][1] - simplex[0][1]),
                        ];
                        values[k] = value(&simplex[k]);
                    }
                }
            }
        }
        let top = (0..3).max_by(|&i, &j| values[i].total_cmp(&values[j])).unwrap();
        if values[top] >= best {
            best = values[top];
            center = at(&simplex[top]);
        }
        step *= 0.1;
    }
    (center, best)
}

/// The signed distance of two convex sets (distance apart, minus the
/// penetration depth overlapping) and the direction achieving it, as the
/// maximum of [`separation`]: the best of `samples` directions and the
/// `hints`, each of the best few refined. A lower bound of the true value
/// by construction, equal to it up to the refinement's convergence.
pub fn signed_distance(
    a: &dyn Support,
    b: &dyn Support,
    hints: &[Vector3<f64>],
    samples: &[Vector3<f64>],
) -> (f64, Vector3<f64>) {
    let f = |n: &Vector3<f64>| separation(a, b, n);
    let mut scored: Vec<(f64, Vector3<f64>)> = samples.iter().map(|n| (f(n), *n)).collect();
    scored.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut starts: Vec<Vector3<f64>> = scored.iter().take(4).map(|s| s.1).collect();
    let between = b.inner() - a.inner();
    if between.norm() > 0.0 {
        starts.push(between);
    }
    starts.extend(
        hints
            .iter()
            .filter(|h| h.norm() > 0.0 && h.iter().all(|c| c.is_finite())),
    );
    let mut best = (f64::NEG_INFINITY, Vector3::y());
    // The hints themselves count (an exact axis the refinement's simplex
    // may step off).
    for hint in hints.iter().filter_map(|h| h.try_normalize(0.0)) {
        let value = f(&hint);
        if value > best.0 {
            best = (value, hint);
        }
    }
    for start in &starts {
        let (n, value) = refine(&f, start, 0.05);
        if value > best.0 {
            best = (value, n);
        }
    }
    best
}

/// [`signed_distance`] where one body may be a half-space: then the
/// separation along its normal is the exact answer.
pub fn signed_distance_bodies(
    a: &Body,
    b: &Body,
    hints: &[Vector3<f64>],
    samples: &[Vector3<f64>],
) -> (f64, Vector3<f64>) {
    match (a.half_space(), b.half_space()) {
        (Some((normal, _)), None) => (separation(a, b, &normal), normal),
        (None, Some((normal, _))) => (separation(a, b, &-normal), -normal),
        _ => {
            // The separating-axis candidates of the polytope parts, both
            // ways: a sharp maximum (a large flat triangle's normal) is
            // out of reach of sampling and Nelder–Mead.
            let ((faces_a, edges_a), (faces_b, edges_b)) = (a.axes(), b.axes());
            let mut all: Vec<Vector3<f64>> = hints.to_vec();
            let crosses = edges_a
                .iter()
                .flat_map(|e| edges_b.iter().map(move |f| e.cross(f)));
            for axis in faces_a.into_iter().chain(faces_b).chain(crosses) {
                if let Some(unit) = axis.try_normalize(0.0) {
                    all.extend([unit, -unit]);
                }
            }
            signed_distance(a, b, &all, samples)
        }
    }
}
