//! Capsule spec: `dist(p, segment a b) − r`.

use super::*;
use geom_prims::Capsule;

#[derive(Clone, Debug)]
pub struct CapsuleSpec {
    /// Where the pose puts the local origin (world).
    pub center: Point3<f64>,
    /// Segment ends relative to `center`.
    pub a: Vector3<f64>,
    pub b: Vector3<f64>,
    pub radius: f64,
}

pub fn strategy() -> impl Strategy<Value = CapsuleSpec> {
    (
        point(100.0),
        (coord(5.0), coord(5.0), coord(5.0)),
        (coord(5.0), coord(5.0), coord(5.0)),
        0.01f64..5.0,
    )
        .prop_map(|(center, a, b, radius)| CapsuleSpec {
            center,
            a: Vector3::new(a.0, a.1, a.2),
            b: Vector3::new(b.0, b.1, b.2),
            radius: f32_exact(radius),
        })
}

impl CapsuleSpec {
    fn world_a(&self) -> Point3<f64> {
        self.center + self.a
    }
    fn world_b(&self) -> Point3<f64> {
        self.center + self.b
    }
}

impl Spec for CapsuleSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Capsule::from_points(self.a.into(), self.b.into(), self.radius)),
            Isometry3::translation(self.center.x, self.center.y, self.center.z),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        let c = self.center.cast::<f32>();
        (
            Box::new(Capsule::from_points(
                self.a.cast::<f32>().into(),
                self.b.cast::<f32>().into(),
                self.radius as f32,
            )),
            Isometry3::translation(c.x, c.y, c.z),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        // Distance to the segment, from the definition: minimise over the
        // clamped parameter of the foot of the perpendicular.
        let (a, b) = (self.world_a(), self.world_b());
        let ab = b - a;
        let length_squared = ab.norm_squared();
        let s = if length_squared > 0.0 {
            ((p - a).dot(&ab) / length_squared).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (p - (a + ab * s)).norm() - self.radius
    }
    fn size(&self) -> f64 {
        (self.b - self.a).norm() + 2.0 * self.radius
    }
    fn center(&self) -> Point3<f64> {
        nalgebra::center(&self.world_a(), &self.world_b())
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        let (a, b) = (self.world_a(), self.world_b());
        let ab = b - a;
        let length = ab.norm();
        let axis = if length > 0.0 { ab / length } else { Vector3::z() };
        let helper = if axis.x.abs() < 0.9 {
            Vector3::x()
        } else {
            Vector3::y()
        };
        let u = axis.cross(&helper).normalize();
        let v = axis.cross(&u);
        let r = self.radius;
        let mut samples = Vec::new();
        // Side: rings along the axis.
        let (rings, around) = (150, 120);
        for i in 0..=rings {
            let along = a + ab * (i as f64 / rings as f64);
            for j in 0..around {
                let phi = std::f64::consts::TAU * j as f64 / around as f64;
                samples.push(along + (u * phi.cos() + v * phi.sin()) * r);
            }
        }
        // Hemispheres: Fibonacci points on the full spheres, keeping the
        // outer half of each.
        let n = 8000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        for i in 0..n {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let ring = (1.0 - y * y).sqrt();
            let phi = golden * i as f64;
            let unit = Vector3::new(ring * phi.cos(), y, ring * phi.sin());
            if unit.dot(&axis) <= 0.0 {
                samples.push(a + unit * r);
            } else {
                samples.push(b + unit * r);
            }
        }
        samples
    }
    /// Where the side meets a cap the surfaces are tangent but their
    /// curvature jumps, so a rounding-sized move of the ray switches between
    /// sheets whose normals differ by about √(2·error / r): treat the band
    /// of that width around each junction circle as an edge.
    fn near_edge(&self, p: &Point3<f64>, tolerance: f64) -> bool {
        let (a, b) = (self.world_a(), self.world_b());
        let ab = b - a;
        let length = ab.norm();
        if length == 0.0 {
            return false;
        }
        let axial = (p - a).dot(&ab) / length;
        let band = (tolerance * self.radius).sqrt();
        axial.abs() < band || (axial - length).abs() < band
    }
}
