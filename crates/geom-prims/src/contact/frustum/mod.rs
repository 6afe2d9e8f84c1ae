//! Cylinders and cones against a triangle or a box, by their features: the
//! separating-axis test over every face of the pair's Minkowski
//! difference, each candidate normal exact for one pair of touching
//! features, then the touching features clipped.
//!
//! A cylinder and a cone are both a *frustum*, the convex hull of two
//! parallel discs on one axis (of radius zero at a cone's apex). Its
//! support along `w` is the farther disc's centre plus its radius along
//! `w`'s part across the axis, so the overlap of a polytope `P` and a
//! frustum `F` along any unit `d` (the normal from `P` to `F`) is exact and
//! cheap:
//!
//! ```text
//! depth(d) = max_{v ∈ P} d·v − min_{x ∈ F} d·x
//! ```
//!
//! The least overlap over all directions is the penetration depth. It is
//! reached on a face of the Minkowski difference (from inside a convex
//! body, the nearest boundary point is never on an edge or a corner of
//! it), and every face comes from a pair of features whose normals have
//! closed forms:
//!
//! - a face of the polytope and any point of the frustum: the face's normal;
//! - a disc (a cap, a cone's base) and a vertex: the axis;
//! - the side's straight lines and an edge `e`: the side normals across
//!   `e` (`axis × e` for a cylinder; for a cone, the two whose azimuth `θ`
//!   solves `radial(θ)·e = −slope·(axis·e)`);
//! - the side and a vertex: the side normal at the vertex's azimuth;
//! - a disc's rim (a circle) and an edge: seen along the edge, the rim is
//!   an ellipse and the edge a point, and the normals are the ellipse's at
//!   the points where the distance from that point is stationary: the
//!   roots of one rational function, each bracketed (Eberly, "Distance
//!   from a Point to an Ellipse, an Ellipsoid, or a Hyperellipsoid").
//!
//! The other pairs (a rim and a vertex, an apex and an edge) are edges and
//! corners of the difference. Every candidate's overlap is measured with
//! the whole shapes' supports, so a candidate that is not a face only
//! loses the minimum (Gregorius, "The Separating Axis Test between Convex
//! Polyhedra", GDC 2013, for the polytope part). The touching features
//! along the least normal are clipped against each other
//! ([`feature_contacts`](super::feature_contacts)), the pair of points
//! the normal is exact for first. For shapes apart, the largest
//! separation is only a lower bound on the distance; when that pair lies
//! on both shapes it certifies the gap as the distance, else the distance
//! comes from GJK, as for the box–triangle routine.

mod pairs;

pub use pairs::{
    closest_points_cone_capsule, closest_points_cone_cuboid, closest_points_cone_triangle,
    closest_points_cylinder_capsule, closest_points_cylinder_cuboid, closest_points_cylinder_triangle,
    contact_cone_capsule, contact_cone_cuboid, contact_cone_triangle, contact_cylinder_capsule,
    contact_cylinder_cuboid, contact_cylinder_triangle,
};

use geom_core::{Real, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::polytope::Polytope;
use super::{try_unit, within_margin};
use crate::{Cone, Cylinder};

/// The convex hull of two parallel discs on one axis: a cylinder (equal
/// radii), a cone (one radius zero) or a segment (both zero).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frustum<N: Real> {
    /// The discs' centres, from the first to the second along `axis`.
    ends: [Point3<N>; 2],
    radii: [N; 2],
    /// Unit, from `ends[0]` to `ends[1]`.
    axis: Vector3<N>,
    /// `(radii[0] − radii[1]) / length`: the side's outward normal at
    /// azimuth `radial` is `(radial + slope·axis) / √(1 + slope²)`.
    slope: N,
}

impl<N: Real> Frustum<N> {
    /// The frustum between discs of `radii` at `ends`; `None` when the
    /// ends coincide (a disc: no axis).
    pub(crate) fn new(ends: [Point3<N>; 2], radii: [N; 2]) -> Option<Self> {
        let along = ends[1] - ends[0];
        let length = geom_core::ray::length_without_overflow(&along);
        let axis = try_unit(&along)?;
        Some(Frustum {
            ends,
            radii,
            axis,
            slope: (radii[0] - radii[1]) / length,
        })
    }

    /// A cylinder in its own frame.
    pub(crate) fn of_cylinder(cylinder: &Cylinder<N>) -> Option<Self> {
        Self::new([cylinder.p0, cylinder.p1], [cylinder.radius; 2])
    }

    /// A cone in its own frame, from its base to its apex.
    pub(crate) fn of_cone(cone: &Cone<N>) -> Option<Self> {
        Self::new([cone.base, cone.apex], [cone.radius, N::zero()])
    }

    /// The frustum moved by `pose`.
    pub(crate) fn moved(&self, pose: &Isometry3<N>) -> Option<Self> {
        Self::new([pose * self.ends[0], pose * self.ends[1]], self.radii)
    }

    /// The unit axis.
    pub(crate) fn axis(&self) -> Vector3<N> {
        self.axis
    }

    /// The unit direction from the axis to `point`, across it (`None` on
    /// the axis).
    pub(crate) fn radial_from_axis(&self, point: &Point3<N>) -> Option<Vector3<N>> {
        try_unit(&self.across(&self.offset_from_nearer_end(point)))
    }

    /// `w`'s part across the axis.
    fn across(&self, w: &Vector3<N>) -> Vector3<N> {
        w - self.axis * w.dot(&self.axis)
    }

    /// The frustum's point extreme along `w` (the farther disc's rim point
    /// in `w`'s direction across the axis; its centre when `w` is along
    /// the axis to rounding, as the shapes' own supports answer).
    pub(crate) fn support(&self, w: &Vector3<N>) -> Point3<N> {
        // `w` across the (unit) axis projected twice, as the shapes' own
        // supports do (`direction_across_axis`): the second projection
        // takes off the first's axial rounding, which a direction near
        // the axis would otherwise scale into the rim point.
        let once = self.across(w);
        let across = once - self.axis * once.dot(&self.axis);
        let length = across.norm();
        let at = |k: usize| self.ends[k].coords.dot(w) + self.radii[k] * length;
        let k = if at(1) > at(0) { 1 } else { 0 };
        // (Along the axis to that rounding: the disc's centre. The noise
        // floor scales with `w`'s largest component, no square to
        // overflow.)
        if length > lit::<N>(32.0) * N::default_epsilon() * w.amax() {
            self.ends[k] + across * (self.radii[k] / length)
        } else {
            self.ends[k]
        }
    }

    /// [`Frustum::reach`] along `w` and along `−w`, from one projection
    /// (the same values: negating `w` negates each product exactly).
    pub(crate) fn reaches(&self, w: &Vector3<N>) -> (N, N) {
        let across = self.across(w).norm();
        let ends = [self.ends[0].coords.dot(w), self.ends[1].coords.dot(w)];
        let along = (ends[0] + self.radii[0] * across).max(ends[1] + self.radii[1] * across);
        let back = (-ends[0] + self.radii[0] * across).max(-ends[1] + self.radii[1] * across);
        (along, back)
    }

    /// The largest projection of the frustum on `w` (its support value).
    pub(crate) fn reach(&self, w: &Vector3<N>) -> N {
        let across = self.across(w).norm();
        let at = |k: usize| self.ends[k].coords.dot(w) + self.radii[k] * across;
        at(0).max(at(1))
    }

    /// `point`'s offset from the nearer disc centre.
    fn offset_from_nearer_end(&self, point: &Point3<N>) -> Vector3<N> {
        let (to_first, to_second) = (point - self.ends[0], point - self.ends[1]);
        if to_first.norm_squared() <= to_second.norm_squared() {
            to_first
        } else {
            to_second
        }
    }

    /// Whether `point` lies on one of the discs' rims, to `tolerance`.
    fn holds_on_rim(&self, point: &Point3<N>, tolerance: N) -> bool {
        (0..2).any(|k| {
            let from_centre = point - self.ends[k];
            self.radii[k] > N::zero()
                && from_centre.dot(&self.axis).abs() <= tolerance
                && (self.across(&from_centre).norm() - self.radii[k]).abs() <= tolerance
        })
    }

    /// Whether `point` lies on the frustum's surface, to `tolerance`: on
    /// the side between the discs, or on a disc within its rim.
    fn holds_on_surface(&self, point: &Point3<N>, tolerance: N) -> bool {
        let length = (self.ends[1] - self.ends[0]).dot(&self.axis);
        let t = (point - self.ends[0]).dot(&self.axis);
        let radial = self.across(&self.offset_from_nearer_end(point)).norm();
        let on_disc = |k: usize, at: N| (t - at).abs() <= tolerance && radial <= self.radii[k] + tolerance;
        let side_radius = self.radii[0] - self.slope * t;
        let on_side = t >= -tolerance && t <= length + tolerance && (radial - side_radius).abs() <= tolerance;
        on_side || on_disc(0, N::zero()) || on_disc(1, length)
    }

    /// The point of disc `k`'s rim nearest `point` (the disc's centre for
    /// a radius of zero or a point on the axis).
    fn rim_point_nearest(&self, k: usize, point: &Point3<N>) -> Point3<N> {
        let centre = self.ends[k];
        match try_unit(&self.across(&(point - centre))) {
            Some(radial) if self.radii[k] > N::zero() => centre + radial * self.radii[k],
            _ => centre,
        }
    }

    /// The range of `n·axis` over the outward normals at disc `k`'s rim:
    /// from its face's (`−1` for the first disc, `1` for the second) to the
    /// side's (`slope / √(1 + slope²)`), at every azimuth.
    fn rim_normal_band(&self, k: usize) -> (N, N) {
        let side = self.slope / (N::one() + self.slope * self.slope).sqrt();
        if k == 0 {
            (-N::one(), side)
        } else {
            (side, N::one())
        }
    }

    /// The side's outward unit normal at the unit azimuth `radial` (across
    /// the axis).
    fn side_normal(&self, radial: &Vector3<N>) -> Vector3<N> {
        (radial + self.axis * self.slope) / (N::one() + self.slope * self.slope).sqrt()
    }
}

/// The pair of features a candidate normal is exact for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Touching {
    /// Face `index` of the polytope and the frustum's point extreme along
    /// the normal (a rim point, the apex; a whole disc lying flat on it).
    PolytopeFace(usize),
    /// Disc `k` and the polytope's vertex extreme along the normal.
    Disc(usize),
    /// The side and polytope vertex `index`.
    SideVertex(usize),
    /// The side's line and the polytope's edge of direction `index`.
    SideEdge(usize),
    /// Disc `k`'s rim and polytope edge `index`.
    RimEdge(usize, usize),
    /// Disc `k`'s rim point nearest polytope vertex `index` (the apex for
    /// a disc of radius zero), and that vertex.
    RimVertex(usize, usize),
    /// A cone's apex (disc `k`, of radius zero) and its nearest point on
    /// polytope edge `index`.
    ApexEdge(usize, usize),
}

/// The least overlap of `polytope` and `frustum` (one frame), with its
/// unit normal from the polytope to the frustum and the features it is
/// exact for, or `None` when some direction separates them by more than
/// `margin`. See the [module documentation](self) for the candidate
/// normals. Ties keep the earlier candidate: the polytope's faces, then
/// the discs', then the rest.
pub(crate) fn least_overlap<N: Real>(
    polytope: &Polytope<N>,
    frustum: &Frustum<N>,
    margin: N,
) -> Option<(Vector3<N>, N, Touching)> {
    let mut search = Search {
        polytope,
        frustum,
        margin,
        best: None,
    };
    for (index, normal) in polytope.face_normals().enumerate() {
        search.consider(normal, Touching::PolytopeFace(index))?;
    }
    // A disc facing the polytope: the normal leaves the polytope along the
    // disc's inward normal.
    if frustum.radii[0] > N::zero() {
        search.consider(frustum.axis, Touching::Disc(0))?;
    }
    if frustum.radii[1] > N::zero() {
        search.consider(-frustum.axis, Touching::Disc(1))?;
    }
    // The side's lines and an edge direction.
    for (direction, e) in polytope.edge_directions().iter().enumerate() {
        let across = frustum.across(e);
        let Some(across_unit) = try_unit(&across) else {
            continue;
        };
        let cosine = -frustum.slope * e.dot(&frustum.axis) / across.norm();
        // (NaN, from a degenerate edge, fails too.)
        if cosine.abs().partial_cmp(&N::one()) != Some(std::cmp::Ordering::Less) && cosine.abs() != N::one() {
            continue;
        }
        let sine = (N::one() - cosine * cosine).max(N::zero()).sqrt();
        let turned = frustum.axis.cross(&across_unit);
        // (On a cylinder the two sides' normals are opposite, and on
        // either with `sine = 0` equal: `both` takes each once.)
        let sides = if frustum.slope == N::zero() || sine == N::zero() {
            1
        } else {
            2
        };
        for side in [sine, -sine].into_iter().take(sides) {
            let radial = across_unit * cosine + turned * side;
            search.both(-frustum.side_normal(&radial), Touching::SideEdge(direction))?;
        }
    }
    // The side and a vertex (its part across the axis measured from the
    // nearer end: a vertex near a cone's apex is near the axis, and its
    // offset from the far end would carry that end's rounding into it).
    for (index, vertex) in polytope.vertices().iter().enumerate() {
        if let Some(radial) = frustum.radial_from_axis(vertex) {
            search.both(-frustum.side_normal(&radial), Touching::SideVertex(index))?;
        }
    }
    // Shapes apart: a rim point (or an apex) and a vertex, an apex and an
    // edge, along the line between them (edges and corners of the
    // difference: never the least overlap, but where the distance of
    // shapes apart may lie, so that the largest separation is it).
    for k in 0..2 {
        for (index, vertex) in polytope.vertices().iter().enumerate() {
            if let Some(d) = try_unit(&(frustum.rim_point_nearest(k, vertex) - vertex)) {
                search.consider(d, Touching::RimVertex(k, index))?;
            }
        }
        if frustum.radii[k] == N::zero() {
            for (edge, (from, to)) in polytope.edge_segments().enumerate() {
                let apex = frustum.ends[k];
                let (on_edge, _) = geom_core::distance::closest_point_on_segment(&apex, &from, &to);
                if let Some(d) = try_unit(&(apex - on_edge)) {
                    search.consider(d, Touching::ApexEdge(k, edge))?;
                }
            }
        }
    }
    // A rim and an edge, where their Gauss images meet: the normal `d`
    // holds the edge extreme (`d` in its arc) and the rim (`−d` in the
    // rim's band of normals). Elsewhere the pair bounds no face of the
    // difference (Gregorius's Gauss-map pruning of edge pairs).
    let rounding = lit::<N>(256.0) * N::default_epsilon();
    for k in 0..2 {
        let radius = frustum.radii[k];
        if radius <= N::zero() {
            continue;
        }
        let (band_low, band_high) = frustum.rim_normal_band(k);
        for (edge, (from, to)) in polytope.edge_segments().enumerate() {
            if let Some((low, high)) = polytope.edge_normal_range(edge, &frustum.axis)
                && (low > -band_low + rounding || high < -band_high - rounding)
            {
                continue;
            }
            let Some(e) = try_unit(&(to - from)) else {
                continue;
            };
            let offset = from - frustum.ends[k];
            let Some(g1) = try_unit(&e.cross(&frustum.axis)) else {
                // The edge along the axis: the rim's normals across it are
                // the radial ones, the nearest toward the edge.
                if let Some(radial) = frustum.radial_from_axis(&from) {
                    search.both(radial, Touching::RimEdge(k, edge))?;
                }
                continue;
            };
            let g2 = e.cross(&g1);
            // The rim seen along the edge: semi-axes `radius` along `g1` and
            // `radius·|axis·e|` along `g2` (the edge's point at `z`).
            let minor = radius * frustum.axis.dot(&e).abs();
            if minor <= radius * N::default_epsilon() {
                continue;
            }
            let z = (offset.dot(&g1), offset.dot(&g2));
            let mut separated = false;
            ellipse_stationary_normals(radius, minor, z, |n1, n2| {
                if !separated && let Some(d) = try_unit(&(g1 * n1 + g2 * n2)) {
                    separated = search.both(d, Touching::RimEdge(k, edge)).is_none();
                }
            });
            if separated {
                return None;
            }
        }
    }
    search.best
}

/// The separating-axis search of [`least_overlap`]: the least overlap so
/// far.
struct Search<'a, N: Real> {
    polytope: &'a Polytope<N>,
    frustum: &'a Frustum<N>,
    margin: N,
    best: Option<(Vector3<N>, N, Touching)>,
}

impl<N: Real> Search<'_, N> {
    /// Takes the overlap along the unit `d`: `None` when it separates the
    /// shapes by more than the margin.
    fn consider(&mut self, d: Vector3<N>, touching: Touching) -> Option<()> {
        if !d.iter().all(|c| c.is_finite()) {
            return Some(());
        }
        let depth = self.polytope.reach(&d) + self.frustum.reach(&-d);
        self.take(d, depth, touching)
    }

    /// [`Search::consider`] for `d` and `−d`, from one pass over each
    /// shape (the reaches along `−d` are the other ends of the same
    /// projections, negated exactly).
    fn both(&mut self, d: Vector3<N>, touching: Touching) -> Option<()> {
        if !d.iter().all(|c| c.is_finite()) {
            return Some(());
        }
        let (low, high) = self.polytope.interval(&d);
        let (reach, reach_back) = self.frustum.reaches(&d);
        self.take(d, high + reach_back, touching)?;
        self.take(-d, -low + reach, touching)
    }

    /// Keeps `d` if its `depth` is the least so far: `None` when it
    /// separates the shapes by more than the margin.
    fn take(&mut self, d: Vector3<N>, depth: N, touching: Touching) -> Option<()> {
        if !within_margin(depth, self.margin) {
            return None;
        }
        if self.best.is_none_or(|(_, least, _)| depth < least) {
            self.best = Some((d, depth, touching));
        }
        Some(())
    }
}

/// Calls `each(n1, n2)` with the (not unit) outward normals of the ellipse
/// `x²/a² + y²/b² = 1` (`a >= b > 0`) at the points where the distance
/// from `z` is stationary and nearest-like: the nearest point, and the
/// two of the other side's stationary points that exist when `z` lies
/// inside the ellipse's evolute. Eberly's parametrisation: the point for
/// `t` is `(a²z₁/(t + a²), b²z₂/(t + b²))`, on the ellipse where
/// `F(t) = (a z₁/(t + a²))² + (b z₂/(t + b²))² − 1` vanishes, and its
/// normal is along `(z₁/(t + a²), z₂/(t + b²))`. `F` is decreasing on
/// `(−b², ∞)` (one root: the nearest point) and convex on `(−a², −b²)`
/// (none or two), each root found by Newton's steps kept in its bracket.
fn ellipse_stationary_normals<N: Real>(a: N, b: N, z: (N, N), mut each: impl FnMut(N, N)) {
    let (z1, z2) = z;
    let (a2, b2) = (a * a, b * b);
    let tiny = N::default_epsilon() * a;
    if z2.abs() <= tiny {
        // On the major axis: its end on `z`'s side, nearest unless the
        // nearest point has left the axis (Eberly's special case); the
        // other end.
        let side = if z1 < N::zero() { -N::one() } else { N::one() };
        let x = a2 * z1 / (a2 - b2);
        if a > b && x.abs() < a {
            let y = b * (N::one() - (x / a) * (x / a)).max(N::zero()).sqrt();
            each(x / a2, y / b2);
            each(x / a2, -y / b2);
        }
        each(side, N::zero());
        each(-side, N::zero());
        return;
    }
    if z1.abs() <= tiny {
        // On the minor axis: its end on `z`'s side (nearest), the other,
        // and the two points off it when `z` is close enough to the centre.
        let side = if z2 < N::zero() { -N::one() } else { N::one() };
        each(N::zero(), side);
        each(N::zero(), -side);
        let y = b2 * z2 / (b2 - a2);
        if a > b && y.abs() < b {
            let x = a * (N::one() - (y / b) * (y / b)).max(N::zero()).sqrt();
            each(x / a2, y / b2);
            each(-x / a2, y / b2);
        }
        return;
    }
    let f = |t: N| {
        let (p, q) = (a * z1 / (t + a2), b * z2 / (t + b2));
        p * p + q * q - N::one()
    };
    // The root's point as an angle on the ellipse, `(a cos θ, b sin θ)`,
    // polished by Newton's method on the stationarity condition
    // `g(θ) = (b² − a²) sin θ cos θ + a z₁ sin θ − b z₂ cos θ = 0` (the
    // root's `t` carries the rounding of `t + a²` and `t + b²` near
    // their poles; two steps restore the angle to rounding), then the
    // normal there, `(cos θ / a, sin θ / b)`.
    let normal = |t: N| {
        let (x, y) = (a2 * z1 / (t + a2), b2 * z2 / (t + b2));
        let mut angle = (y / b).atan2(x / a);
        for _ in 0..2 {
            let (sine, cosine) = angle.sin_cos();
            let g = (b2 - a2) * sine * cosine + a * z1 * sine - b * z2 * cosine;
            let slope = (b2 - a2) * (cosine * cosine - sine * sine) + a * z1 * cosine + b * z2 * sine;
            if slope != N::zero() && (g / slope).is_finite() {
                angle -= g / slope;
            }
        }
        let (sine, cosine) = angle.sin_cos();
        (cosine / a, sine / b)
    };
    let slope = |t: N| {
        let (p, q) = (t + a2, t + b2);
        -lit::<N>(2.0) * (a2 * z1 * z1 / (p * p * p) + b2 * z2 * z2 / (q * q * q))
    };
    // The root of the convex `F` between `start`, where `F >= 0`, and
    // `stop`: Newton's steps from `start` approach it from one side
    // without passing it, and a few of them are all the angle polish
    // below needs.
    let root = |start: N, stop: N| {
        let mut t = start;
        for _ in 0..12 {
            let (value, derivative) = (f(t), slope(t));
            if value.partial_cmp(&N::zero()) != Some(std::cmp::Ordering::Greater) || derivative == N::zero() {
                break;
            }
            let next = t - value / derivative;
            let inside = if start <= stop {
                next > t && next <= stop
            } else {
                next < t && next >= stop
            };
            if !inside || (next - t).abs() <= N::default_epsilon() * (t.abs() + a2) {
                t = if inside { next } else { t };
                break;
            }
            t = next;
        }
        t
    };
    // The nearest point: `F(−b² + b|z₂|) >= 0`, `F(−b² + |(a z₁, b z₂)|) <= 0`.
    let low = -b2 + b * z2.abs();
    let high = -b2 + (a * z1).hypot(b * z2);
    let (n1, n2) = normal(root(low, high.max(low)));
    each(n1, n2);
    if a <= b {
        return;
    }
    // `F`'s least value on `(−a², −b²)`, where `F' = 0`:
    // `(t + b²)/(t + a²) = −κ`, `κ = (b|z₂| / (a|z₁|))^(2/3)`.
    let kappa = (b * z2.abs() / (a * z1.abs())).powf(lit(2.0 / 3.0));
    let least = -(b2 + kappa * a2) / (N::one() + kappa);
    if !(least > -a2 && least < -b2) || f(least) >= N::zero() {
        return;
    }
    // Either side of it, where `F >= 1`: within `a|z₁|` of `−a²` and
    // within `b|z₂|` of `−b²`, each on its side of the least value.
    let half = lit::<N>(0.5);
    let left = -a2 + (a * z1.abs()).min((least + a2) * half);
    let right = -b2 - (b * z2.abs()).min((-b2 - least) * half);
    for start in [left, right] {
        let (n1, n2) = normal(root(start, least));
        each(n1, n2);
    }
}

#[cfg(test)]
mod tests;
