//! Half-space spec: `n̂·(p − T) − offset/|n|` with `n̂` the rotated unit
//! normal and `T` the pose's translation (the shape is `n·x <= offset` in
//! its local frame, `n` as given).

use super::*;
use geom_prims::HalfSpace;

#[derive(Clone, Debug)]
pub struct HalfSpaceSpec {
    /// The pose's translation.
    pub translation: Point3<f64>,
    pub rotation: [f64; 4],
    /// The local normal as given to the constructor (any length).
    pub normal: Vector3<f64>,
    pub offset: f64,
}

pub fn strategy() -> impl Strategy<Value = HalfSpaceSpec> {
    // A third of the normals along an axis (the exact, tight-box case).
    let axis_normal = (0usize..3, prop_oneof![Just(-2.5f64), Just(1.0)]).prop_map(|(axis, length)| {
        let mut n = Vector3::zeros();
        n[axis] = length;
        n
    });
    let any_normal = (coord(1.0), coord(1.0), coord(1.0))
        .prop_map(|(x, y, z)| Vector3::new(x, y, z))
        .prop_filter("non-degenerate normal", |n| n.norm() > 0.1);
    let normal = prop_oneof![1 => axis_normal, 2 => any_normal];
    (point(100.0), rotation(), normal, coord(5.0)).prop_map(|(translation, rotation, normal, offset)| {
        HalfSpaceSpec {
            translation,
            rotation,
            normal,
            offset,
        }
    })
}

impl HalfSpaceSpec {
    fn world_normal(&self) -> Vector3<f64> {
        pose64(&self.translation, self.rotation).rotation * self.normal.normalize()
    }
    /// The plane's distance from the local origin along the unit normal.
    fn unit_offset(&self) -> f64 {
        self.offset / self.normal.norm()
    }
}

impl Spec for HalfSpaceSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(HalfSpace::new(self.normal, self.offset)),
            pose64(&self.translation, self.rotation),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(HalfSpace::new(self.normal.cast::<f32>(), self.offset as f32)),
            pose32(&self.translation, self.rotation),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        self.world_normal().dot(&(p - self.translation)) - self.unit_offset()
    }
    fn size(&self) -> f64 {
        1.0
    }
    /// The pose's origin, not the plane point: the f32 pose rotation moves
    /// the local origin by ~eps·|origin − T|, the scale the f32 inputs carry
    /// (the suite's floor). Rays aimed here still cross the plane at most
    /// `|offset|/|n| <= 50` away.
    fn center(&self) -> Point3<f64> {
        self.translation
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        // A 201 × 201 grid on the plane, ±5 around the centre's projection
        // (queries are within 2·√3 of the centre).
        let n = self.world_normal();
        let helper = if n.x.abs() < 0.9 {
            Vector3::x()
        } else {
            Vector3::y()
        };
        let u = n.cross(&helper).normalize();
        let v = n.cross(&u);
        let center = self.translation + n * self.unit_offset();
        let steps = 200;
        let mut samples = Vec::with_capacity((steps + 1) * (steps + 1));
        for i in 0..=steps {
            for j in 0..=steps {
                let a = 10.0 * i as f64 / steps as f64 - 5.0;
                let b = 10.0 * j as f64 / steps as f64 - 5.0;
                samples.push(center + u * a + v * b);
            }
        }
        samples
    }
}
