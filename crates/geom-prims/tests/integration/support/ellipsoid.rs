//! Ellipsoid spec: the scaled implicit `(|q / r| − 1) · min(r)` in the local
//! frame `q` of the pose (same zero set and sign as the ellipsoid, gradient
//! along `q / r²`, and within a factor `max(r)/min(r)` of a distance).

use super::*;
use geom_prims::Ellipsoid;

#[derive(Clone, Debug)]
pub struct EllipsoidSpec {
    pub center: Point3<f64>,
    pub radii: Vector3<f64>,
    pub rotation: [f64; 4],
}

pub fn strategy() -> impl Strategy<Value = EllipsoidSpec> {
    (
        point(100.0),
        0.01f64..10.0,
        0.01f64..10.0,
        0.01f64..10.0,
        rotation(),
    )
        .prop_map(|(center, rx, ry, rz, rotation)| EllipsoidSpec {
            center,
            radii: Vector3::new(rx, ry, rz).map(f32_exact),
            rotation,
        })
}

impl EllipsoidSpec {
    fn local(&self, p: &Point3<f64>) -> Vector3<f64> {
        pose64(&self.center, self.rotation)
            .inverse_transform_point(p)
            .coords
    }
}

impl Spec for EllipsoidSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Ellipsoid::new(self.radii)),
            pose64(&self.center, self.rotation),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(Ellipsoid::new(self.radii.cast::<f32>())),
            pose32(&self.center, self.rotation),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        (self.local(p).component_div(&self.radii).norm() - 1.0) * self.radii.min()
    }
    fn size(&self) -> f64 {
        self.radii.max()
    }
    fn center(&self) -> Point3<f64> {
        self.center
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        // The unit sphere's Fibonacci points, stretched by the radii.
        let n = 40_000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let pose = pose64(&self.center, self.rotation);
        (0..n)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
                let r = (1.0 - y * y).sqrt();
                let phi = golden * i as f64;
                let unit = Vector3::new(r * phi.cos(), y, r * phi.sin());
                pose * Point3::from(unit.component_mul(&self.radii))
            })
            .collect()
    }
}
