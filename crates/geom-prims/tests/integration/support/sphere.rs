//! Sphere spec: `|p − c| − r`.

use super::*;
use geom_prims::Sphere;

#[derive(Clone, Debug)]
pub struct SphereSpec {
    pub center: Point3<f64>,
    pub radius: f64,
}

pub fn strategy() -> impl Strategy<Value = SphereSpec> {
    (point(100.0), 0.01f64..10.0).prop_map(|(center, radius)| SphereSpec {
        center,
        radius: f32_exact(radius),
    })
}

impl Spec for SphereSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Sphere::new(self.radius)),
            Isometry3::translation(self.center.x, self.center.y, self.center.z),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        let c = self.center.cast::<f32>();
        (
            Box::new(Sphere::new(self.radius as f32)),
            Isometry3::translation(c.x, c.y, c.z),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        (p - self.center).norm() - self.radius
    }
    fn size(&self) -> f64 {
        self.radius
    }
    fn center(&self) -> Point3<f64> {
        self.center
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        // Fibonacci sphere.
        let n = 20_000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        (0..n)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
                let r = (1.0 - y * y).sqrt();
                let phi = golden * i as f64;
                self.center + Vector3::new(r * phi.cos(), y, r * phi.sin()) * self.radius
            })
            .collect()
    }
}
