//! Shared by the fuzz targets: decoding arbitrary bytes into scalars,
//! shapes, poses, rays and motions, biased towards the values that break
//! geometry code (NaN, ±inf, subnormals, ±0, 1e±38, 1e±308, degenerate
//! shapes), and the properties every answer must keep.
//!
//! Every byte string decodes: reads past the end give zeros. A decoded
//! input is *tame* when every number in it is zero or within
//! `[1e-3, 1e3]` in magnitude and every rotation is well defined; the
//! accuracy checks (a hit point lies on the surface, a projection is the
//! nearest point) run on tame inputs only, the robustness checks (no panic,
//! no NaN or infinity in an answer, `t ∈ [0, max_t]`, unit normals) on all.

use std::fmt::Debug;
use std::sync::OnceLock;

use geom::prelude::*;
use geom::{BatchReal, DispatchTable, LaneShape};
use nalgebra::Quaternion;

pub mod check;
pub mod pair_case;
pub mod targets;

// The pair oracle of `crates/geom/tests/integration/pair_oracle` (independent support
// functions, the achievability and optimality checks), shared as source:
// the `pair_oracle` target checks the same properties on cases the fuzzer
// steers.
#[allow(dead_code, missing_docs, clippy::all)]
#[path = "../../crates/geom/tests/integration/pair_oracle/cases.rs"]
pub mod cases;
#[allow(dead_code, missing_docs, clippy::all)]
#[path = "../../crates/geom/tests/integration/pair_oracle/checks.rs"]
pub mod checks;
#[allow(dead_code, missing_docs, clippy::all)]
#[path = "../../crates/geom/tests/integration/pair_oracle/oracle.rs"]
pub mod oracle;

/// The fuzzer's bytes, read front to back.
#[derive(Debug)]
pub struct Input<'a> {
    bytes: &'a [u8],
    wild: bool,
}

impl<'a> Input<'a> {
    /// Starts reading `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes, wild: false }
    }

    /// The next byte, or 0 past the end.
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&first, rest)) => {
                self.bytes = rest;
                first
            }
            None => 0,
        }
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// One bit of the next byte.
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// A number in `0..count`.
    pub fn below(&mut self, count: usize) -> usize {
        usize::from(self.byte()) % count
    }

    /// The next `K` bytes.
    pub fn array<const K: usize>(&mut self) -> [u8; K] {
        let mut out = [0; K];
        for byte in &mut out {
            *byte = self.byte();
        }
        out
    }

    /// Whether some decoded value was outside the tame range.
    pub fn is_wild(&self) -> bool {
        self.wild
    }

    /// Marks the input as not tame.
    pub fn mark_wild(&mut self) {
        self.wild = true;
    }

    /// A scalar: a multiple of 1/8 in `[-16, 16)`, a special value, or any
    /// bit pattern.
    pub fn scalar<N: FuzzReal>(&mut self) -> N {
        let value = match self.byte() {
            0..=111 => N::eighths(self.byte() as i8),
            112..=191 => N::SPECIALS[self.below(N::SPECIALS.len())],
            _ => N::from_raw(self),
        };
        let magnitude = value.abs();
        let tame = magnitude == N::zero()
            || (magnitude >= nalgebra::convert(1e-3) && magnitude <= nalgebra::convert(1e3));
        if !tame {
            self.wild = true;
        }
        value
    }

    /// A non-negative scalar (the absolute value of [`Input::scalar`], so
    /// NaN stays NaN).
    pub fn length<N: FuzzReal>(&mut self) -> N {
        self.scalar::<N>().abs()
    }

    /// A point with three [`Input::scalar`] coordinates.
    pub fn point<N: FuzzReal>(&mut self) -> Point3<N> {
        Point3::new(self.scalar(), self.scalar(), self.scalar())
    }

    /// A vector with three [`Input::scalar`] coordinates.
    pub fn vector<N: FuzzReal>(&mut self) -> Vector3<N> {
        Vector3::new(self.scalar(), self.scalar(), self.scalar())
    }

    /// A pose: the identity, a translation with Euler angles, or a
    /// translation with any quaternion normalised by nalgebra (a zero or
    /// overflowing quaternion gives NaN, which queries must refuse).
    pub fn pose<N: FuzzReal>(&mut self) -> Isometry3<N> {
        match self.below(4) {
            0 => Isometry3::identity(),
            1 => Isometry3::translation(self.scalar(), self.scalar(), self.scalar()),
            2 => {
                let translation = Translation3::from(self.vector::<N>());
                let rotation = UnitQuaternion::from_euler_angles(self.scalar(), self.scalar(), self.scalar());
                Isometry3::from_parts(translation, rotation)
            }
            _ => {
                let translation = Translation3::from(self.vector::<N>());
                let quaternion = Quaternion::new(self.scalar(), self.scalar(), self.scalar(), self.scalar());
                if !(quaternion.norm() >= nalgebra::convert(1e-2)) {
                    self.wild = true;
                }
                Isometry3::from_parts(translation, UnitQuaternion::from_quaternion(quaternion))
            }
        }
    }

    /// A ray with any origin and direction.
    pub fn ray<N: FuzzReal>(&mut self) -> Ray<N> {
        Ray::new(self.point(), self.vector())
    }

    /// A ray cast's `max_t`: infinity half of the time, else any scalar.
    pub fn max_t<N: FuzzReal>(&mut self) -> N {
        if self.flag() {
            nalgebra::convert(f64::INFINITY)
        } else {
            self.scalar()
        }
    }

    /// Any shape, through its validating constructor; `None` when the
    /// constructor refused the parameters (after checking that the error
    /// names a parameter and its value).
    pub fn shape<N: FuzzReal>(&mut self) -> Option<FuzzShape<N>> {
        let kind = self.below(10);
        self.shape_of_kind(kind)
    }

    /// A sphere, capsule or ellipsoid: the shapes that sweep exactly.
    pub fn moving_shape<N: FuzzReal>(&mut self) -> Option<FuzzShape<N>> {
        let kind = [0, 1, 4][self.below(3)];
        self.shape_of_kind(kind)
    }

    /// The shape of kind `kind` (`0..10`, in [`ShapeKind::index`] order).
    pub fn shape_of_kind<N: FuzzReal>(&mut self, kind: usize) -> Option<FuzzShape<N>> {
        let built = match kind {
            0 => Sphere::try_new(self.length()).map(FuzzShape::Sphere),
            1 => {
                let a = self.point();
                // Coincident ends half of the time: a capsule that is a sphere.
                let b = if self.flag() { a } else { self.point() };
                Capsule::try_from_points(a, b, self.length()).map(FuzzShape::Capsule)
            }
            2 => {
                Cylinder::try_from_points(self.point(), self.point(), self.length()).map(FuzzShape::Cylinder)
            }
            3 => Cone::try_from_points(self.point(), self.point(), self.length()).map(FuzzShape::Cone),
            4 => Ellipsoid::try_new(self.positive_vector()).map(FuzzShape::Ellipsoid),
            5 => Cuboid::try_new(self.positive_vector()).map(FuzzShape::Cuboid),
            6 => HalfSpace::try_new(self.vector(), self.scalar()).map(FuzzShape::HalfSpace),
            7 => {
                let (a, b) = (self.point(), self.point());
                let c = match self.below(4) {
                    0 => self.point(),
                    // Flat (collinear) and point-like triangles.
                    1 => a + (b - a) * self.scalar::<N>(),
                    2 => a,
                    _ => b,
                };
                Triangle::try_new(a, b, c).map(FuzzShape::Triangle)
            }
            8 => {
                let a = self.point();
                let b = if self.flag() { a } else { self.point() };
                Segment::try_new(a, b).map(FuzzShape::Segment)
            }
            _ => self.height_field().map(FuzzShape::HeightField),
        };
        match built {
            Ok(shape) => Some(shape),
            Err(error) => {
                check::constructor_error(&error);
                None
            }
        }
    }

    /// A vector of non-negative components, one of them zero a third of
    /// the time (flat ellipsoids, zero-thickness boxes).
    fn positive_vector<N: FuzzReal>(&mut self) -> Vector3<N> {
        let mut v = Vector3::new(self.length(), self.length(), self.length());
        if let Some(axis) = [Some(0), Some(1), Some(2), None, None, None][self.below(6)] {
            v[axis] = N::zero();
        }
        v
    }

    /// A heightfield of 2–5 × 2–5 samples with flipped cells and holes.
    fn height_field<N: FuzzReal>(&mut self) -> Result<HeightField<N>, GeomError> {
        let rows = 2 + self.below(4);
        let cols = 2 + self.below(4);
        let flat = self.flag();
        let level = self.scalar::<N>();
        let heights = (0..rows * cols)
            .map(|_| if flat { level } else { self.scalar() })
            .collect();
        let mut desc =
            HeightFieldDesc::new(self.point(), [self.scalar(), self.scalar()], rows, cols, heights);
        let cells = (rows - 1) * (cols - 1);
        let [flip_mask, hole_mask] = self.array::<2>().map(u16::from);
        // One bit past the last cell, so out-of-range indices are refused.
        desc.flipped_cells = (0..=cells).filter(|c| flip_mask >> (c % 16) & 1 == 1).collect();
        desc.flipped_cells.retain(|&c| c < cells || self.byte() == 0);
        desc.hole_cells = (0..=cells).filter(|c| hole_mask >> (c % 16) & 1 == 1).collect();
        desc.hole_cells.retain(|&c| c < cells || self.byte() == 0);
        if self.flag() {
            desc.active_edge_angle = self.scalar();
        }
        HeightField::try_from_desc(desc)
    }
}

/// The scalars the targets run on: `f32` and `f64`.
pub trait FuzzReal: BatchReal + Debug {
    /// Values that break geometry code in this precision.
    const SPECIALS: &'static [Self];
    /// `k / 8`.
    fn eighths(k: i8) -> Self;
    /// Any bit pattern from the next bytes.
    fn from_raw(input: &mut Input) -> Self;
    /// The bits, for bitwise comparisons.
    fn bits(self) -> u64;
    /// Relative tolerance of the accuracy checks on tame inputs.
    fn tolerance() -> Self;
    /// The dispatch table with every built-in pair, built once.
    fn table() -> &'static DispatchTable<Self>;
}

impl FuzzReal for f32 {
    const SPECIALS: &'static [f32] = &[
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        1e-40,
        1.4e-45,
        -1.4e-45,
        f32::MAX,
        f32::MIN,
        f32::EPSILON,
        1e-38,
        -1e-38,
        1e38,
        -1e38,
        1e-30,
        1e30,
        1e4,
        -1e4,
        1e6,
        1e-7,
        1e-12,
        1e12,
        1e-20,
        1e20,
    ];

    fn eighths(k: i8) -> f32 {
        f32::from(k) / 8.0
    }

    fn from_raw(input: &mut Input) -> f32 {
        f32::from_le_bytes(input.array())
    }

    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }

    fn tolerance() -> f32 {
        2e-3
    }

    fn table() -> &'static DispatchTable<f32> {
        static TABLE: OnceLock<DispatchTable<f32>> = OnceLock::new();
        TABLE.get_or_init(geom::default_dispatcher)
    }
}

impl FuzzReal for f64 {
    const SPECIALS: &'static [f64] = &[
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        1e-310,
        5e-324,
        -5e-324,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        1e-38,
        -1e-38,
        1e38,
        -1e38,
        1e-308,
        1e308,
        -1e308,
        1e-300,
        1e300,
        1e4,
        -1e4,
        1e6,
        1e-7,
        1e15,
        1e-15,
        3.4028235e38,
        1.4e-45,
    ];

    fn eighths(k: i8) -> f64 {
        f64::from(k) / 8.0
    }

    fn from_raw(input: &mut Input) -> f64 {
        f64::from_le_bytes(input.array())
    }

    fn bits(self) -> u64 {
        self.to_bits()
    }

    fn tolerance() -> f64 {
        1e-7
    }

    fn table() -> &'static DispatchTable<f64> {
        static TABLE: OnceLock<DispatchTable<f64>> = OnceLock::new();
        TABLE.get_or_init(geom::default_dispatcher)
    }
}

/// A decoded shape of any built-in kind.
#[derive(Clone, Debug)]
pub enum FuzzShape<N: FuzzReal> {
    /// A sphere.
    Sphere(Sphere<N>),
    /// A capsule.
    Capsule(Capsule<N>),
    /// A cylinder.
    Cylinder(Cylinder<N>),
    /// A cone.
    Cone(Cone<N>),
    /// An ellipsoid.
    Ellipsoid(Ellipsoid<N>),
    /// A box.
    Cuboid(Cuboid<N>),
    /// A half-space.
    HalfSpace(HalfSpace<N>),
    /// A triangle.
    Triangle(Triangle<N>),
    /// A segment.
    Segment(Segment<N>),
    /// A heightfield.
    HeightField(HeightField<N>),
}

/// Something to run on a shape with a lane kernel (every primitive).
pub trait LaneShapeVisitor<N: FuzzReal> {
    /// What the visit returns.
    type Output;
    /// Runs on the concrete shape.
    fn visit<S: LaneShape<N> + Shape<N> + geom::BatchShape<N> + Sync>(self, shape: &S) -> Self::Output;
}

impl<N: FuzzReal> FuzzShape<N> {
    /// The shape as a trait object.
    pub fn as_shape(&self) -> &dyn Shape<N> {
        match self {
            FuzzShape::Sphere(s) => s,
            FuzzShape::Capsule(s) => s,
            FuzzShape::Cylinder(s) => s,
            FuzzShape::Cone(s) => s,
            FuzzShape::Ellipsoid(s) => s,
            FuzzShape::Cuboid(s) => s,
            FuzzShape::HalfSpace(s) => s,
            FuzzShape::Triangle(s) => s,
            FuzzShape::Segment(s) => s,
            FuzzShape::HeightField(s) => s,
        }
    }

    /// Runs `visitor` on the concrete shape; `None` for a heightfield (it
    /// has no lane kernel).
    pub fn visit_lanes<V: LaneShapeVisitor<N>>(&self, visitor: V) -> Option<V::Output> {
        Some(match self {
            FuzzShape::Sphere(s) => visitor.visit(s),
            FuzzShape::Capsule(s) => visitor.visit(s),
            FuzzShape::Cylinder(s) => visitor.visit(s),
            FuzzShape::Cone(s) => visitor.visit(s),
            FuzzShape::Ellipsoid(s) => visitor.visit(s),
            FuzzShape::Cuboid(s) => visitor.visit(s),
            FuzzShape::HalfSpace(s) => visitor.visit(s),
            FuzzShape::Triangle(s) => visitor.visit(s),
            FuzzShape::Segment(s) => visitor.visit(s),
            FuzzShape::HeightField(_) => return None,
        })
    }
}
