//! Triangle spec: the unsigned distance, written directly in f64: the
//! height above the plane where the projection falls inside (all three
//! edge sides agree), else the distance to the nearest edge segment.

use super::*;
use geom_prims::Triangle;

#[derive(Clone, Debug)]
pub struct TriangleSpec {
    pub a: Point3<f64>,
    pub b: Point3<f64>,
    pub c: Point3<f64>,
}

pub fn strategy() -> impl Strategy<Value = TriangleSpec> {
    (point(100.0), 0.1f64..10.0, point(1.0), point(1.0), point(1.0)).prop_map(|(center, size, a, b, c)| {
        let vertex = |offset: Point3<f64>| (center + offset.coords * size).map(f32_exact);
        TriangleSpec {
            a: vertex(a),
            b: vertex(b),
            c: vertex(c),
        }
    })
}

/// Distance from `p` to the segment `a b` (clamped projection).
fn segment_distance(p: &Point3<f64>, a: &Point3<f64>, b: &Point3<f64>) -> f64 {
    let ab = b - a;
    let length_squared = ab.norm_squared();
    let s = if length_squared > 0.0 {
        ((p - a).dot(&ab) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * s)).norm()
}

impl Spec for TriangleSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Triangle::new(self.a, self.b, self.c)),
            Isometry3::identity(),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(Triangle::new(self.a.cast(), self.b.cast(), self.c.cast())),
            Isometry3::identity(),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        let (a, b, c) = (self.a, self.b, self.c);
        let n = (b - a).cross(&(c - a));
        let edges = segment_distance(p, &a, &b)
            .min(segment_distance(p, &b, &c))
            .min(segment_distance(p, &c, &a));
        if n.norm_squared() == 0.0 {
            return edges;
        }
        let unit = n.normalize();
        let height = (p - a).dot(&unit);
        let projected = p - unit * height;
        let side = |from: &Point3<f64>, to: &Point3<f64>| (to - from).cross(&(projected - from)).dot(&n);
        let inside = side(&a, &b) >= 0.0 && side(&b, &c) >= 0.0 && side(&c, &a) >= 0.0;
        if inside { height.abs() } else { edges }
    }
    fn is_thin(&self) -> bool {
        true
    }
    fn size(&self) -> f64 {
        (self.b - self.a)
            .norm()
            .max((self.c - self.b).norm())
            .max((self.a - self.c).norm())
    }
    fn center(&self) -> Point3<f64> {
        Point3::from((self.a.coords + self.b.coords + self.c.coords) / 3.0)
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        let n = 150;
        let mut samples = Vec::with_capacity((n + 1) * (n + 2) / 2);
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (v, w) = (i as f64 / n as f64, j as f64 / n as f64);
                samples.push(self.a + (self.b - self.a) * v + (self.c - self.a) * w);
            }
        }
        samples
    }
}
