//! Orthonormal bases from one unit vector.
//!
//! ```
//! use geom_prims::orthonormal_basis;
//! use nalgebra::Vector3;
//!
//! // For n = +z the tangents are the x and y axes.
//! assert_eq!(orthonormal_basis(&Vector3::<f64>::z()), (Vector3::x(), Vector3::y()));
//! // For any unit n: two unit tangents, perpendicular to n and to each other, with b1 × b2 = n.
//! let n = Vector3::new(0.6f64, 0.0, -0.8); // 0.36 + 0.64 = 1
//! let (b1, b2) = orthonormal_basis(&n);
//! assert!((b1.norm() - 1.0).abs() < 1e-12 && (b2.norm() - 1.0).abs() < 1e-12);
//! assert!(b1.dot(&n).abs() < 1e-12 && b2.dot(&n).abs() < 1e-12 && b1.dot(&b2).abs() < 1e-12);
//! assert!((b1.cross(&b2) - n).norm() < 1e-12);
//! ```

use geom_core::Lane;
use nalgebra::{SimdValue, Vector3};

/// Two unit tangents `(b1, b2)` such that `(b1, b2, n)` is a right-handed
/// orthonormal basis, for a unit `n`.
///
/// Duff et al., "Building an Orthonormal Basis, Revisited", JCGT 6(1), 2017:
/// branch-free, with the sign taken from `n.z` so that `n = (0, 0, -1)` is as
/// accurate as any other input (the orthonormality defect stays within a few
/// ulp everywhere).
#[inline]
pub fn orthonormal_basis<T: Lane>(n: &Vector3<T>) -> (Vector3<T>, Vector3<T>) {
    let one = T::one();
    let sign = one.select(n.z.simd_ge(T::zero()), -one);
    let a = -one / (sign + n.z);
    let b = n.x * n.y * a;
    let b1 = Vector3::new(one + sign * n.x * n.x * a, sign * b, -sign * n.x);
    let b2 = Vector3::new(b, sign + n.y * n.y * a, -n.y);
    (b1, b2)
}

/// The same basis built from the smaller-component rule (the cylinder seed's
/// construction, after Eberly): the first tangent zeroes the coordinate of
/// the smaller of `|n.x|`, `|n.y|`, the second is `n × b1`. Costs a square
/// root; kept for comparison and for callers that want one tangent in a
/// coordinate plane.
#[inline]
pub fn orthonormal_basis_smaller_component<T: Lane>(n: &Vector3<T>) -> (Vector3<T>, Vector3<T>) {
    let zero = T::zero();
    let use_y_zero = n.x.simd_abs().simd_ge(n.y.simd_abs());
    let in_xz = Vector3::new(-n.z, zero, n.x) / (n.x * n.x + n.z * n.z).simd_sqrt();
    let in_yz = Vector3::new(zero, n.z, -n.y) / (n.y * n.y + n.z * n.z).simd_sqrt();
    let b1 = in_xz.select(use_y_zero, in_yz);
    let b2 = n.cross(&b1);
    (b1, b2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use simba::simd::WideF32x8;

    /// Largest deviation from orthonormality, computed in f64 from the f32
    /// vectors (so the check itself adds no error).
    fn defect(n: Vector3<f32>, (b1, b2): (Vector3<f32>, Vector3<f32>)) -> f64 {
        let [n, b1, b2] = [n, b1, b2].map(|v| v.cast::<f64>());
        let handed = (b1.cross(&b2) - n).norm();
        [
            (b1.norm() - 1.0).abs(),
            (b2.norm() - 1.0).abs(),
            b1.dot(&b2).abs(),
            b1.dot(&n).abs(),
            b2.dot(&n).abs(),
            handed,
        ]
        .into_iter()
        .fold(0.0, f64::max)
    }

    fn hard_inputs() -> Vec<Vector3<f32>> {
        let mut inputs: Vec<Vector3<f32>> = vec![
            Vector3::new(0.0, 0.0, -1.0),
            Vector3::new(0.0, 0.0, 1.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, -1.0, 0.0),
            Vector3::new(1e-4, 1e-4, -1.0).normalize(),
            Vector3::new(-1e-4, 1e-4, -1.0).normalize(),
            Vector3::new(1e-7, -1e-7, -1.0).normalize(),
            Vector3::new(0.0, 0.0, -0.0),
        ];
        inputs.pop();
        let mut rng = TestRng::new(3);
        for _ in 0..100_000 {
            let v = rng.vector(1.0).cast::<f32>();
            if v.norm() > 1e-3 {
                inputs.push(v.normalize());
            }
            // Near the poles, where the naive forms lose digits.
            let near_pole = Vector3::new(rng.uniform(-1e-3, 1e-3), rng.uniform(-1e-3, 1e-3), -1.0);
            inputs.push(near_pole.cast::<f32>().normalize());
        }
        inputs
    }

    #[test]
    fn duff_basis_is_orthonormal_to_a_few_ulp_in_f32() {
        let worst = hard_inputs()
            .into_iter()
            .map(|n| defect(n, orthonormal_basis(&n)))
            .fold(0.0, f64::max);
        // 4 ulp-scale at 1.0 in f32 is 4 * 2^-23 ≈ 4.8e-7.
        assert!(worst <= 4.0 * f32::EPSILON as f64, "worst defect {worst}");
    }

    #[test]
    fn smaller_component_basis_is_orthonormal_to_a_few_ulp_in_f32() {
        let worst = hard_inputs()
            .into_iter()
            .map(|n| defect(n, orthonormal_basis_smaller_component(&n)))
            .fold(0.0, f64::max);
        assert!(worst <= 4.0 * f32::EPSILON as f64, "worst defect {worst}");
    }

    #[test]
    fn lanes_equal_scalar() {
        let inputs = hard_inputs();
        for chunk in inputs.chunks_exact(8).take(2000) {
            let lane = |k: usize| WideF32x8::from(std::array::from_fn::<f32, 8, _>(|i| chunk[i][k]));
            let n = Vector3::new(lane(0), lane(1), lane(2));
            let (b1, b2) = orthonormal_basis(&n);
            for (i, scalar_n) in chunk.iter().enumerate() {
                let (s1, s2) = orthonormal_basis(scalar_n);
                assert_eq!(b1.map(|c| c.extract(i)), s1);
                assert_eq!(b2.map(|c| c.extract(i)), s2);
            }
        }
    }
}
