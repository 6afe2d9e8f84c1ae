//! Cylinder spec: Quilez's exact capped-cylinder SDF between two points.

use super::*;
use geom_prims::Cylinder;

#[derive(Clone, Debug)]
pub struct CylinderSpec {
    /// Where the pose puts the local origin (world).
    pub center: Point3<f64>,
    /// Cap centres relative to `center`.
    pub p0: Vector3<f64>,
    pub p1: Vector3<f64>,
    pub radius: f64,
}

pub fn strategy() -> impl Strategy<Value = CylinderSpec> {
    (
        point(100.0),
        (coord(5.0), coord(5.0), coord(5.0)),
        (coord(5.0), coord(5.0), coord(5.0)),
        0.01f64..5.0,
    )
        .prop_filter("axis long enough to be a cylinder", |(_, p0, p1, _)| {
            let (dx, dy, dz) = (p1.0 - p0.0, p1.1 - p0.1, p1.2 - p0.2);
            dx * dx + dy * dy + dz * dz > 0.01
        })
        .prop_map(|(center, p0, p1, radius)| CylinderSpec {
            center,
            p0: Vector3::new(p0.0, p0.1, p0.2),
            p1: Vector3::new(p1.0, p1.1, p1.2),
            radius: f32_exact(radius),
        })
}

impl CylinderSpec {
    fn world_p0(&self) -> Point3<f64> {
        self.center + self.p0
    }
    fn world_p1(&self) -> Point3<f64> {
        self.center + self.p1
    }
    /// (axial coordinate from p0 in length units, radial distance) of `p`.
    fn axial_radial(&self, p: &Point3<f64>) -> (f64, f64) {
        let (a, b) = (self.world_p0(), self.world_p1());
        let ab = b - a;
        let length = ab.norm();
        let axial = (p - a).dot(&ab) / length;
        let radial = ((p - a) - ab * (axial / length)).norm();
        (axial, radial)
    }
}

impl Spec for CylinderSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Cylinder::from_points(self.p0.into(), self.p1.into(), self.radius)),
            Isometry3::translation(self.center.x, self.center.y, self.center.z),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        let c = self.center.cast::<f32>();
        (
            Box::new(Cylinder::from_points(
                self.p0.cast::<f32>().into(),
                self.p1.cast::<f32>().into(),
                self.radius as f32,
            )),
            Isometry3::translation(c.x, c.y, c.z),
        )
    }
    /// Quilez, "distance functions", sdCappedCylinder(p, a, b, r).
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        let (a, b) = (self.world_p0(), self.world_p1());
        let r = self.radius;
        let ba = b - a;
        let pa = p - a;
        let baba = ba.dot(&ba);
        let paba = pa.dot(&ba);
        let x = (pa * baba - ba * paba).norm() - r * baba;
        let y = (paba - baba * 0.5).abs() - baba * 0.5;
        let x2 = x * x;
        let y2 = y * y * baba;
        let d = if x.max(y) < 0.0 {
            -x2.min(y2)
        } else {
            (if x > 0.0 { x2 } else { 0.0 }) + (if y > 0.0 { y2 } else { 0.0 })
        };
        d.signum() * d.abs().sqrt() / baba
    }
    fn size(&self) -> f64 {
        let length = (self.p1 - self.p0).norm();
        (length * length + 4.0 * self.radius * self.radius).sqrt()
    }
    fn center(&self) -> Point3<f64> {
        nalgebra::center(&self.world_p0(), &self.world_p1())
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        let (a, b) = (self.world_p0(), self.world_p1());
        let ab = b - a;
        let axis = ab.normalize();
        let helper = if axis.x.abs() < 0.9 {
            Vector3::x()
        } else {
            Vector3::y()
        };
        let u = axis.cross(&helper).normalize();
        let v = axis.cross(&u);
        let r = self.radius;
        let around = 120;
        let ring = |centre: Point3<f64>, radius: f64, samples: &mut Vec<Point3<f64>>| {
            for j in 0..around {
                let phi = std::f64::consts::TAU * j as f64 / around as f64;
                samples.push(centre + (u * phi.cos() + v * phi.sin()) * radius);
            }
        };
        let mut samples = Vec::new();
        let rings = 120;
        for i in 0..=rings {
            ring(a + ab * (i as f64 / rings as f64), r, &mut samples);
        }
        let disks = 60;
        for i in 0..disks {
            let radius = r * i as f64 / disks as f64;
            ring(a, radius, &mut samples);
            ring(b, radius, &mut samples);
        }
        samples
    }
    /// Within `tolerance` of either rim circle (where side meets cap).
    fn near_edge(&self, p: &Point3<f64>, tolerance: f64) -> bool {
        let (axial, radial) = self.axial_radial(p);
        let length = (self.p1 - self.p0).norm();
        let to_cap_plane = axial.abs().min((axial - length).abs());
        let to_rim = ((radial - self.radius).powi(2) + to_cap_plane.powi(2)).sqrt();
        to_rim <= 2.0 * tolerance
    }
}
