//! Cuboid spec: the exact box SDF `|max(q, 0)| + min(max_k q_k, 0)`,
//! `q = |local p| − h`, in the box's rotated frame.

use super::*;
use geom_prims::Cuboid;

#[derive(Clone, Debug)]
pub struct CuboidSpec {
    pub center: Point3<f64>,
    pub half_extents: Vector3<f64>,
    pub rotation: [f64; 4],
}

pub fn strategy() -> impl Strategy<Value = CuboidSpec> {
    (
        point(100.0),
        (0.01f64..10.0, 0.01f64..10.0, 0.01f64..10.0),
        rotation(),
    )
        .prop_map(|(center, (hx, hy, hz), rotation)| CuboidSpec {
            center,
            half_extents: Vector3::new(hx, hy, hz).map(f32_exact),
            rotation,
        })
}

impl CuboidSpec {
    /// `|local p| − h`: per axis, the signed distance to that pair of faces.
    fn face_gaps(&self, p: &Point3<f64>) -> Vector3<f64> {
        let local = pose64(&self.center, self.rotation).inverse_transform_point(p);
        local.coords.abs() - self.half_extents
    }
}

impl Spec for CuboidSpec {
    fn build64(&self) -> (Box<dyn Shape<f64>>, Isometry3<f64>) {
        (
            Box::new(Cuboid::new(self.half_extents)),
            pose64(&self.center, self.rotation),
        )
    }
    fn build32(&self) -> (Box<dyn Shape<f32>>, Isometry3<f32>) {
        (
            Box::new(Cuboid::new(self.half_extents.cast::<f32>())),
            pose32(&self.center, self.rotation),
        )
    }
    fn implicit(&self, p: &Point3<f64>) -> f64 {
        let q = self.face_gaps(p);
        q.map(|x| x.max(0.0)).norm() + q.max().min(0.0)
    }
    fn size(&self) -> f64 {
        self.half_extents.max()
    }
    fn center(&self) -> Point3<f64> {
        self.center
    }
    fn surface_samples(&self) -> Vec<Point3<f64>> {
        // A 61 × 61 grid on each of the six faces.
        let pose = pose64(&self.center, self.rotation);
        let n = 60;
        let h = self.half_extents;
        let mut samples = Vec::with_capacity(6 * (n + 1) * (n + 1));
        for axis in 0..3 {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for side in [-1.0, 1.0] {
                for i in 0..=n {
                    for j in 0..=n {
                        let mut local = Vector3::zeros();
                        local[axis] = side * h[axis];
                        local[u] = h[u] * (2.0 * i as f64 / n as f64 - 1.0);
                        local[v] = h[v] * (2.0 * j as f64 / n as f64 - 1.0);
                        samples.push(pose * Point3::from(local));
                    }
                }
            }
        }
        samples
    }
    fn near_edge(&self, p: &Point3<f64>, tolerance: f64) -> bool {
        // On an edge two face planes meet: two gaps within tolerance of zero
        // (or above it, outside).
        self.face_gaps(p).iter().filter(|&&q| q >= -tolerance).count() >= 2
    }
}
