//! Segment spec: the unsigned distance to the segment, in f64 from the
//! clamped projection onto its line.

use super::*;
use geom_prims::Segment;

#[derive(Clone, Debug)]
pub struct SegmentSpec {
    pub a: Point3<f64>,
    pub b: Point3<f64>,
}

pub fn strategy() -> impl Strategy<Value = SegmentSpec> {
    (point(100.0), 0.1f64..10.0, point(1.0), point(1.0)).prop_map(|(center, size, a, b)| SegmentSpec {
        a: (center + a.coords * size).map(f32_exact),
        b: (center + b.coords * size).map(f32_exact),
    })
}

impl Spec for SegmentSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (Box::new(Segment::new(self.a, self.b)), Isometry3::identity())
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(Segment::new(self.a.cast(), self.b.cast())),
            Isometry3::identity(),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        let ab = self.b - self.a;
        let s = ((p - self.a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
        let s = if s.is_finite() { s } else { 0.0 };
        (p - (self.a + ab * s)).norm()
    }
    fn is_thin(&self) -> bool {
        true
    }
    fn size(&self) -> f64 {
        (self.b - self.a).norm()
    }
    fn center(&self) -> Point3<f64> {
        nalgebra::center(&self.a, &self.b)
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        let n = 4000;
        (0..=n)
            .map(|i| self.a + (self.b - self.a) * (i as f64 / n as f64))
            .collect()
    }
}
