//! Cone spec: Quilez's exact capped-cone SDF (sdCappedCone with radius 0 at
//! the apex), written from its definition with the radial distance taken
//! from a cross product (no `|pa|² − (pa·u)²` cancellation near the axis).

use super::*;
use geom_prims::Cone;

#[derive(Clone, Debug)]
pub struct ConeSpec {
    pub apex: Point3<f64>,
    pub base: Point3<f64>,
    pub radius: f64,
}

pub fn strategy() -> impl Strategy<Value = ConeSpec> {
    (point(100.0), point(1.0), 0.05f64..10.0, 0.01f64..10.0)
        .prop_filter("axis not too short", |(_, axis, _, _)| axis.coords.norm() > 0.05)
        .prop_map(|(apex, axis, height, radius)| {
            let base = apex + axis.coords.normalize() * height;
            ConeSpec {
                apex,
                base: base.map(f32_exact),
                radius: f32_exact(radius),
            }
        })
        .prop_filter("f32 axis non-degenerate", |spec| spec.apex != spec.base)
}

impl ConeSpec {
    /// (axial coordinate from the apex, distance to the axis, height).
    fn axial_radial(&self, p: &Point3<f64>) -> (f64, f64, f64) {
        let ba = self.base - self.apex;
        let h = ba.norm();
        let pa = p - self.apex;
        (pa.dot(&ba) / h, pa.cross(&ba).norm() / h, h)
    }
}

impl Spec for ConeSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Cone::from_points(self.apex, self.base, self.radius)),
            Isometry3::identity(),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(Cone::from_points(
                self.apex.cast::<f32>(),
                self.base.cast::<f32>(),
                self.radius as f32,
            )),
            Isometry3::identity(),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        // Quilez, sdCappedCone(p, a, b, ra = 0, rb = r), in units of the axis:
        // paba = axial / h, x = radial.
        let (axial, x, h) = self.axial_radial(p);
        let (ra, rb) = (0.0, self.radius);
        let rba = rb - ra;
        let baba = h * h;
        let paba = axial / h;
        let cax = (x - if paba < 0.5 { ra } else { rb }).max(0.0);
        let cay = (paba - 0.5).abs() - 0.5;
        let k = rba * rba + baba;
        let f = ((rba * (x - ra) + paba * baba) / k).clamp(0.0, 1.0);
        let cbx = x - ra - f * rba;
        let cby = paba - f;
        let s = if cbx < 0.0 && cay < 0.0 { -1.0 } else { 1.0 };
        s * (cax * cax + cay * cay * baba)
            .min(cbx * cbx + cby * cby * baba)
            .sqrt()
    }
    fn size(&self) -> f64 {
        (self.base - self.apex).norm().max(2.0 * self.radius)
    }
    fn center(&self) -> Point3<f64> {
        nalgebra::center(&self.apex, &self.base)
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        let ba = self.base - self.apex;
        let u = ba.normalize();
        let helper = if u.x.abs() < 0.6 {
            Vector3::x()
        } else {
            Vector3::y()
        };
        let b1 = u.cross(&helper).normalize();
        let b2 = u.cross(&b1);
        let (rings, around) = (100, 200);
        let mut samples = Vec::with_capacity(2 * (rings + 1) * around);
        for i in 0..=rings {
            let s = i as f64 / rings as f64;
            for j in 0..around {
                let angle = j as f64 * std::f64::consts::TAU / around as f64;
                let out = b1 * angle.cos() + b2 * angle.sin();
                samples.push(self.apex + ba * s + out * (self.radius * s));
                samples.push(self.base + out * (self.radius * s));
            }
        }
        samples
    }
    fn near_edge(&self, p: &Point3<f64>, tolerance: f64) -> bool {
        let (axial, radial, h) = self.axial_radial(p);
        let to_rim = ((axial - h).powi(2) + (radial - self.radius).powi(2)).sqrt();
        (p - self.apex).norm() < tolerance || to_rim < tolerance
    }
}
