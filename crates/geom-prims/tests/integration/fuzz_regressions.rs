//! Inputs the fuzz targets (`fuzz/`, see docs/reliability.md) found to
//! break a primitive, each fixed at its root and kept here.

use geom_core::dispatch::DispatchTable;
use geom_core::{ContactManifolds, GeomError, Ray, Real, Shape};
use geom_prims::{Capsule, Cuboid, Ellipsoid, Segment, Sphere, Triangle};
use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};

fn table<N: Real>() -> DispatchTable<N> {
    let mut table = DispatchTable::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    table
}

fn is_unit<N: Real>(v: &Vector3<N>) -> bool {
    (v.norm() - N::one()).abs() < nalgebra::convert(1e-5)
}

/// Every contact of `a` against `b` is finite with a unit normal.
fn finite_contacts<N: Real>(a: &dyn Shape<N>, b: &dyn Shape<N>) -> ContactManifolds<N> {
    let pose = Isometry3::identity();
    let mut out = ContactManifolds::new();
    table::<N>()
        .contact(a, &pose, b, &pose, N::zero(), &mut out)
        .unwrap();
    for (normal, point) in out.points() {
        assert!(is_unit(normal), "{normal:?}");
        assert!(point.depth.is_finite(), "{point:?}");
        assert!(
            point
                .point_a
                .iter()
                .chain(point.point_b.iter())
                .all(|c| c.is_finite()),
            "{point:?}"
        );
    }
    out
}

/// Found by `ray_cast` (`f32`): the box of an ellipsoid with radii
/// `[0, f32::MAX, 5]` was all NaN. The constructor refuses such radii
/// since (`geom_core::max_size`); built field by field, the shape still
/// gets a box.
#[test]
fn ellipsoid_as_tall_as_the_largest_f32_has_a_box() {
    assert!(Ellipsoid::try_new(Vector3::new(0.0f32, f32::MAX, 5.0)).is_err());
    let ellipsoid = Ellipsoid {
        radii: Vector3::new(0.0f32, f32::MAX, 5.0),
    };
    let aabb = ellipsoid.aabb(&Isometry3::identity());
    assert_eq!(
        (aabb.mins.x, aabb.maxs.x, aabb.maxs.y, aabb.maxs.z),
        (0.0, 0.0, f32::MAX, 5.0)
    );
}

/// Found by `ray_cast` (`f64`): a capsule of radius 1e308 at y = −1e308
/// reaches −∞; its box was all NaN. (Refused by the constructor since;
/// built field by field here.)
#[test]
fn capsule_reaching_past_the_largest_f64_has_a_box() {
    let end = Point3::new(1e-15, -1e308, -9.5);
    assert!(Capsule::try_from_points(end, end, 1e308).is_err());
    let capsule = Capsule {
        a: end,
        b: end,
        radius: 1e308,
    };
    let aabb = capsule.aabb(&Isometry3::identity());
    assert!(
        aabb.mins
            .iter()
            .chain(aabb.maxs.iter())
            .all(|c: &f64| !c.is_nan()),
        "{aabb:?}"
    );
    assert_eq!(aabb.mins.y, f64::NEG_INFINITY);
}

/// Found by `batch` (`f32`): hit from inside, a zero-size box reported the
/// normal `(−0, 0, 0)` for a `dir` whose length overflows.
#[test]
fn zero_box_hit_from_inside_by_an_overflowing_dir_faces_the_ray() {
    let dir = Vector3::new(11.375f32, -0.125, -2.8179631e38);
    let ray = Ray::new(Point3::origin(), dir);
    let hit = Cuboid::new(Vector3::zeros())
        .ray_cast(&Isometry3::identity(), &ray, f32::INFINITY, true)
        .unwrap();
    assert_eq!(hit.t, 0.0);
    assert!(is_unit(&hit.normal) && hit.normal.z > 0.99, "{hit:?}");
}

/// Found by `batch` (`f32`): a ray touching a segment 1e12 long reported
/// the normal `(0, 0, 0)` (`|(dir × axis) × axis|²` overflowed).
#[test]
fn long_segment_touched_by_a_ray_has_a_unit_normal() {
    let segment = Segment::new(Point3::new(1.875f32, 1.875, -4.25), Point3::new(0.0, 1e12, 0.25));
    let pose = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_quaternion(Quaternion::new(0.3502333, -0.64976674, 0.4770429, 0.4770429)),
    );
    let ray = Ray::new(Point3::new(1.875, 0.125, 1e-12), Vector3::new(0.0, 0.0, 0.25));
    if let Some(hit) = segment.ray_cast(&pose, &ray, 0.0, false) {
        assert!(is_unit(&hit.normal), "{hit:?}");
    }
    let axis_hit = Segment::new(Point3::new(0.0f32, -1e12, 0.0), Point3::new(0.0, 1e12, 0.0))
        .ray_cast(
            &Isometry3::identity(),
            &Ray::new(Point3::new(-1.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0)),
            f32::INFINITY,
            true,
        )
        .unwrap();
    assert_eq!(axis_hit.t, 1.0);
    assert!(is_unit(&axis_hit.normal), "{axis_hit:?}");
}

/// Found by `contact` (`f64`): a point sphere touching a triangle whose
/// first vertex is at −1e308 got the contact point `(NaN, NaN, NaN)`.
#[test]
fn point_sphere_on_a_triangle_with_a_1e308_vertex_has_finite_contacts() {
    // Refused by the constructor since (an edge beyond 2·max_size); built
    // field by field, the contact stays finite.
    assert!(Triangle::try_new(Point3::new(-1e308, 0.0, 0.0), Point3::origin(), Point3::origin()).is_err());
    let triangle = Triangle {
        a: Point3::new(-1e308, 0.0, 0.0),
        b: Point3::origin(),
        c: Point3::origin(),
    };
    let out = finite_contacts::<f64>(&triangle, &Sphere::new(0.0));
    assert_eq!(out.points().count(), 1);
}

/// Found by `sweep` (`f32`): a point sphere touching a triangle 1.3e-22
/// long got a normal of length 0.99 (the longest edge was normalised by a
/// length whose square underflowed).
#[test]
fn point_sphere_on_a_1e_22_triangle_gets_a_unit_normal() {
    let triangle = Triangle::new(
        Point3::new(1.2830245e-22f32, 0.0, 0.0),
        Point3::origin(),
        Point3::origin(),
    );
    let out = finite_contacts::<f32>(&triangle, &Sphere::new(0.0));
    assert_eq!(out.points().count(), 1);
}

/// Found by `contact`: two spheres of radius 1e308 at one place overlap by
/// 2e308, which is not an `f64`: the table refuses the answer instead of
/// returning an infinite depth. (The constructor refuses such radii since;
/// built field by field here, the table still refuses the answer.)
#[test]
fn overlap_beyond_the_largest_float_is_refused() {
    assert!(Sphere::try_new(1e308).is_err());
    let big = Sphere { radius: 1e308 };
    let pose = Isometry3::identity();
    let mut out = ContactManifolds::new();
    let answer = table::<f64>().contact(&big, &pose, &big, &pose, 0.0, &mut out);
    assert!(matches!(answer, Err(GeomError::NonFinite { .. })), "{answer:?}");
    assert!(out.is_empty());
    // Half that size is answered.
    let half = Sphere { radius: 4e307 };
    table::<f64>()
        .contact(&half, &pose, &half, &pose, 0.0, &mut out)
        .unwrap();
    assert_eq!(out.points().next().unwrap().1.depth, 8e307);
}

/// Found by `ray_cast` (`f32`): the origin, on a capsule's axis, projected
/// onto the boundary through the cap (7.875 along −z, still inside) instead
/// of out through the side: the axial rounding of the projection onto the
/// axis was taken for the outward direction.
#[test]
fn point_on_a_capsule_axis_projects_out_through_the_side() {
    let capsule = Capsule::from_points(
        Point3::new(0.0f32, 0.0, -0.12489127),
        Point3::new(0.0, 0.0, 4.875),
        7.875,
    );
    let projection = capsule
        .closest_point(&Isometry3::identity(), &Point3::origin(), false)
        .unwrap();
    assert!(projection.is_inside);
    assert!(projection.point.z.abs() < 1e-6, "{projection:?}");
    assert!(
        (projection.point.coords.norm() - 7.875).abs() < 1e-5,
        "{projection:?}"
    );
}

/// Found by `ray_cast` (`f32`): a capsule at y = f32::MAX turned by 180°
/// about x had a box with NaN bounds (the rotation made `∞ − ∞`); such
/// bounds now span the whole axis.
#[test]
fn capsule_at_the_largest_f32_turned_over_has_a_box() {
    let end = Point3::new(12.5f32, f32::MAX, 12.625);
    // Field by field: the constructor refuses radii below 1/max_size since.
    let capsule = Capsule {
        a: end,
        b: end,
        radius: 1.1754944e-38,
    };
    let pose = Isometry3::from_parts(
        Translation3::new(0.125, 12.5, 1.1920929e-7),
        UnitQuaternion::from_quaternion(Quaternion::new(6.194e-42, -1.0, 0.0, 0.0)),
    );
    let aabb = capsule.aabb(&pose);
    assert!(
        aabb.mins
            .iter()
            .chain(aabb.maxs.iter())
            .all(|c: &f32| !c.is_nan()),
        "{aabb:?}"
    );
}

/// Found by `ray_cast` (`f64`): a hollow sphere exited by a ray whose `dir`
/// is 4.6e275 long reported the normal `(−0, −0, −0)`: the sphere kernel
/// squares `|dir|`, which overflows past 1e154. `PoseMatrix::ray_to_local`
/// now scales such a `dir` by a power of two (`dir_scale`) and `t` back.
#[test]
fn sphere_exit_by_an_overflowing_dir_has_a_unit_normal() {
    let ray = Ray::new(
        Point3::new(3.22526e-319, 0.0, 0.0),
        Vector3::new(13.0, 4.6146210573644057e275, 0.0),
    );
    let hit = Sphere::new(15.625).ray_cast(&Isometry3::identity(), &ray, 0.0, false);
    if let Some(hit) = hit {
        assert!(is_unit(&hit.normal), "{hit:?}");
    }
    // Without the bound, the exit 15.625 / 4.6e275 along `dir`, facing +y.
    let hit = Sphere::new(15.625)
        .ray_cast(&Isometry3::identity(), &ray, f64::INFINITY, false)
        .unwrap();
    assert!(is_unit(&hit.normal), "{hit:?}");
    assert!(
        (hit.t * 4.6146210573644057e275 / 15.625 - 1.0).abs() < 1e-12,
        "{hit:?}"
    );
    assert!(hit.normal.y > 0.99, "{hit:?}");
    // In f32 beyond 1.8e19, through the trait call and the batch alike.
    let ray = Ray::new(Point3::new(1e-45f32, 0.0, 0.0), Vector3::new(1e20, 0.0, 0.0));
    let sphere = Sphere::new(6.25f32);
    let hit = sphere
        .ray_cast(&Isometry3::identity(), &ray, f32::INFINITY, false)
        .unwrap();
    assert!(is_unit(&hit.normal), "{hit:?}");
    assert!((hit.t * 1e20 / 6.25 - 1.0).abs() < 1e-6, "{hit:?}");
    // And below 1e-19, where the square underflows.
    let ray = Ray::new(Point3::new(1e-45f32, 0.0, 0.0), Vector3::new(1e-22, 0.0, 0.0));
    let hit = sphere
        .ray_cast(&Isometry3::identity(), &ray, f32::INFINITY, false)
        .unwrap();
    assert!(is_unit(&hit.normal) && hit.normal.x > 0.99, "{hit:?}");
    assert!((hit.t * 1e-22 / 6.25 - 1.0).abs() < 1e-6, "{hit:?}");
    // An exit whose time is beyond the largest float misses (the scaled-up
    // `dir` gave a finite local time, scaled back to infinity).
    let ray = Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 1e-308));
    let hit = Sphere::new(6.0).ray_cast(&Isometry3::identity(), &ray, f64::INFINITY, false);
    assert_eq!(hit, None);
}

/// Found by `batch` (`f32`, 101 of the saved inputs): a hollow cylinder
/// cast from inside by a ray whose `|axis × dir|²` overflows. The side's
/// far root is `∞ / ∞ = NaN`; simba's scalar `simd_max(x, NaN)` answers
/// the NaN (which the slab then drops) but `wide`'s answers `x`, so the
/// lanes exited at `t = 0` where the trait call found the cap beyond
/// `max_t = 0`. Kernels now use `LaneOrd::lane_max`/`lane_min`, one NaN
/// rule for both.
#[test]
fn cylinder_lanes_equal_scalar_for_a_dir_whose_square_overflows() {
    use geom_prims::cylinder::ray_cast_cylinder;
    use nalgebra::SimdValue;
    use simba::simd::{WideF32x4, WideF32x8};

    let (p0, p1) = (Point3::new(12.75f32, 4.625, 0.0), Point3::new(11.75, 0.0, 10.25));
    let origin = Point3::new(2.25f32, -2.125, -2.125);
    let dir = Vector3::new(2.125f32, 2.125, -2.925667e28);
    let scalar = ray_cast_cylinder(&Ray::new(origin, dir), &p0, &p1, 16.0, 0.0, false);
    let bits = |t: f32, n: &Vector3<f32>| (t.to_bits(), n.map(f32::to_bits));
    macro_rules! check {
        ($wide:ty) => {
            let ray = Ray::new(origin.map(<$wide>::splat), dir.map(<$wide>::splat));
            let lanes = ray_cast_cylinder(
                &ray,
                &p0.map(<$wide>::splat),
                &p1.map(<$wide>::splat),
                <$wide>::splat(16.0),
                <$wide>::splat(0.0),
                false,
            );
            for i in 0..<$wide>::LANES {
                assert_eq!(lanes.mask.extract(i), scalar.mask);
                assert_eq!(
                    bits(lanes.t.extract(i), &lanes.normal.map(|c| c.extract(i))),
                    bits(scalar.t, &scalar.normal)
                );
            }
        };
    }
    check!(WideF32x4);
    check!(WideF32x8);
    // Through the posed trait call and the batch: both miss.
    let cylinder = geom_prims::Cylinder::from_points(p0, p1, 16.0);
    let pose = Isometry3::translation(1e-38f32, 2.125, 2.125);
    let ray = Ray::new(Point3::new(2.25f32, 0.0, 0.0), dir);
    assert_eq!(cylinder.ray_cast(&pose, &ray, 0.0, false), None);
}

/// Found by `contact` (`f32`): a point ellipsoid 3.5e-22 from the centre of
/// a sphere of radius 1e12. GJK's witness points are 3.5e-22 apart, whose
/// square underflows: `try_normalize` gave a normal of length 1.0024. GJK's
/// normal and EPA's face normals now go through `try_unit` (scaled first).
#[test]
fn point_ellipsoid_a_hair_inside_a_huge_sphere_gets_a_unit_normal() {
    let point = Ellipsoid::new(Vector3::<f32>::zeros());
    let sphere = Sphere::new(1e12f32);
    let pose_a = Isometry3::translation(3.4596955e-22f32, 0.0, 0.0);
    let mut out = ContactManifolds::new();
    table::<f32>()
        .contact(&point, &pose_a, &sphere, &Isometry3::identity(), 0.0, &mut out)
        .unwrap();
    assert!(out.points().count() > 0);
    for (normal, point) in out.points() {
        assert!(is_unit(normal), "{normal:?}");
        assert!(point.depth.is_finite(), "{point:?}");
    }
}

/// Found by `batch` and `ray_cast` (30 saved inputs): a triangle with a
/// vertex near 1e35 (`f32`) or 1e300 (`f64`) hit by a ray: the face normal
/// `(b − a) × (c − a)` is finite but its square overflows, and
/// `n / |n|` came out zero. The face normal now goes through `with_length`;
/// and since the third round such triangles are refused by
/// `Triangle::try_new` (edges up to 2·max_size keep cross products finite).
#[test]
fn triangle_with_a_vertex_near_the_square_root_limit_has_a_unit_normal() {
    fn check<N: Real>(far: N) {
        let zero = N::zero();
        // Field by field: edges this long are refused by the constructor
        // since (beyond 2·max_size), but the kernel still copes.
        let triangle = Triangle {
            a: Point3::origin(),
            b: Point3::new(far, zero, zero),
            c: Point3::new(zero, nalgebra::convert(16.0), zero),
        };
        let ray = Ray::new(
            Point3::new(N::one(), N::one(), nalgebra::convert(5.0)),
            -Vector3::z(),
        );
        for solid in [false, true] {
            let hit = triangle
                .ray_cast(
                    &Isometry3::identity(),
                    &ray,
                    nalgebra::convert(f64::INFINITY),
                    solid,
                )
                .unwrap();
            assert_eq!(hit.t, nalgebra::convert(5.0));
            assert_eq!(hit.normal, Vector3::z());
        }
    }
    check(1e35f32);
    check(1e300f64);
}

/// Found by `contact` (`f32`): a sphere whose centre lies on a segment
/// reaching 1e20. The cores touch, EPA sees a flat (one-dimensional)
/// difference and took its direction with `normalize`, whose square
/// overflowed: zero normal. EPA's edge and plane directions now go through
/// `try_unit`.
#[test]
fn sphere_on_a_segment_reaching_1e20_gets_a_unit_normal() {
    let sphere = Sphere::new(8.5f32);
    let segment = Segment::new(Point3::new(8.5f32, 8.5, 8.5), Point3::new(8.5, 1e20, 1e20));
    let pose_a = Isometry3::from_parts(
        Translation3::new(1e-38f32, 1e20, 1e20),
        UnitQuaternion::from_quaternion(Quaternion::new(0.06851887, 0.0, 0.27407548, -0.95926416)),
    );
    let mut out = ContactManifolds::new();
    table::<f32>()
        .contact(&sphere, &pose_a, &segment, &Isometry3::identity(), 0.0, &mut out)
        .unwrap();
    for (normal, point) in out.points() {
        assert!(is_unit(normal), "{normal:?}");
        assert!(point.depth.is_finite(), "{point:?}");
    }
}

/// Found by `batch` (`f32`, 2 saved inputs): a ray from inside a tilted
/// cone straight through its apex reported a hit at `t = 0` on the base,
/// 4.7 and 6.1 inside the surface. The lateral quadric has a double root
/// at the apex and `f32` rounding lost it, leaving the inside origin with
/// no exit ahead. The tip now counts as a crossing when the ray passes
/// within rounding of it.
#[test]
fn ray_from_inside_a_tilted_cone_through_its_apex_exits_at_the_apex() {
    use geom_core::FeatureId;
    use geom_prims::Cone;
    // The apex is at z = 14.375 on the ray x = y = 0: t = 14.375 / 3.25.
    let expected = 14.375f64 / 3.25;
    for base in [
        [1.0, 0.0, -15.5],
        [1.0, 4.0, -15.5],
        [0.0, 0.0, -15.5],
        [-3.0, 2.5, -9.0],
    ] {
        let f32_cone = Cone::<f32>::from_points(Point3::new(0.0, 0.0, 14.375), Point3::from(base), 15.25);
        let f64_cone = Cone::<f64>::from_points(
            Point3::new(0.0, 0.0, 14.375),
            Point3::from(base.map(f64::from)),
            15.25,
        );
        let hit32 = f32_cone
            .ray_cast_local(
                &Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 3.25)),
                f32::INFINITY,
                false,
            )
            .unwrap();
        let hit64 = f64_cone
            .ray_cast_local(
                &Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 3.25)),
                f64::INFINITY,
                false,
            )
            .unwrap();
        assert!(
            ((hit32.t as f64) - expected).abs() <= 2.0 * f32::EPSILON as f64 * expected,
            "{base:?} {hit32:?}"
        );
        assert!(
            (hit64.t - expected).abs() <= 4.0 * f64::EPSILON * expected,
            "{base:?} {hit64:?}"
        );
        assert_eq!(
            (hit32.feature, hit64.feature),
            (FeatureId::Face(0), FeatureId::Face(0))
        );
        assert!(is_unit(&hit32.normal) && is_unit(&hit64.normal));
        // The exit is ahead: a zero `max_t` admits no hit.
        let none = f32_cone.ray_cast_local(
            &Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 4.875)),
            0.0,
            false,
        );
        assert!(none.is_none(), "{base:?} {none:?}");
    }
}

/// Found by `batch` (`f32`): cylinders of radius 1e-45 and 3.4e-22 and a
/// cone whose base has subnormal coordinates gave side normals of length
/// 1.03, 1.0024 and 0.19: the radial offset was divided by a length whose
/// square underflowed. It now goes through `with_length` (scaled first).
#[test]
fn tiny_radial_offsets_give_unit_side_normals() {
    use geom_prims::{Cone, Cylinder};
    // Field by field: radii below 1/max_size (2.2e-19 in f32) are refused
    // by the constructor since.
    assert!(Cylinder::<f32>::try_from_points(Point3::origin(), Point3::new(1.0, 0.0, 0.0), 1e-45).is_err());
    let cylinders = [
        Cylinder::<f32> {
            p0: Point3::new(-1e-45, -1e-45, 1e-12),
            p1: Point3::new(-1e-45, -4.4082382e-18, -1e-45),
            radius: 1e-45,
        },
        Cylinder {
            p0: Point3::new(8.125, 2.0, 5.026e-41),
            p1: Point3::origin(),
            radius: 3.3888202e-22,
        },
    ];
    let rays = [
        Ray::new(Point3::origin(), Vector3::new(0.0, -4.375, 13.75)),
        Ray::new(Point3::origin(), Vector3::new(0.0, 12.25, 12.25)),
    ];
    for (cylinder, ray) in cylinders.iter().zip(&rays) {
        if let Some(hit) = cylinder.ray_cast_local(ray, f32::INFINITY, false) {
            assert!(is_unit(&hit.normal), "{cylinder:?} {hit:?}");
        }
    }
    let cone = Cone::<f32>::from_points(
        Point3::new(1.0, 1.0, -15.875),
        Point3::new(0.0, -1e-45, -1e-45),
        12.125,
    );
    let pose = Isometry3::translation(12.125, 12.125, 12.125);
    let ray = Ray::new(
        Point3::new(12.125, 12.125, 12.125),
        Vector3::new(12.125, 12.125, 15.875),
    );
    for max_t in [0.0, 1.0, f32::INFINITY] {
        if let Some(hit) = cone.ray_cast(&pose, &ray, max_t, false) {
            assert!(is_unit(&hit.normal), "{hit:?}");
        }
    }
}

/// Found by `batch` and `ray_cast` (6 saved inputs): flat cones of radius
/// 1e20 and 9.7e24 (`f32`, `h² + r²` overflows) and ellipsoids with a zero
/// radius beside 13 and 1.2e161 (`f64`) or 12 and 1.4e23 (`f32`, the
/// gradient's square underflows) reported zero or non-unit normals. Both
/// normals now go through `with_length`. Radii that large are refused by
/// the constructors since (`geom_core::max_size`); the shapes are built
/// field by field here.
#[test]
fn flat_cones_and_lopsided_ellipsoids_give_unit_normals() {
    use geom_prims::Cone;
    assert!(Cone::<f32>::try_from_points(Point3::origin(), Point3::new(-12.5, -0.25, 0.0), 1e20).is_err());
    let cone = Cone::<f32> {
        apex: Point3::origin(),
        base: Point3::new(-12.5, -0.25, 0.0),
        radius: 1e20,
    };
    let ray = Ray::new(Point3::new(-0.125, 0.0, -12.5), Vector3::new(1.5, -14.5, 0.0));
    let flat = Cone::<f32> {
        apex: Point3::new(0.0, 0.0, 1.0),
        base: Point3::new(0.0, -10000.0, 1750594900000.0),
        radius: 9.671769e24,
    };
    let flat_ray = Ray::new(Point3::new(3.0, 0.0, 10.375), Vector3::new(10.375, 15.75, 1e-30));
    let mut hits = 0;
    for (shape, ray) in [(&cone, &ray), (&flat, &flat_ray)] {
        for max_t in [0.0, f32::INFINITY] {
            if let Some(hit) = shape.ray_cast_local(ray, max_t, false) {
                hits += 1;
                assert!(is_unit(&hit.normal), "{shape:?} {hit:?}");
            }
        }
    }
    assert!(hits > 0);
    let ellipsoid = Ellipsoid::<f64> {
        radii: Vector3::new(13.0, 1.2217640232283872e161, 0.0),
    };
    let ray = Ray::new(
        Point3::new(-12.125, 0.0, 0.0),
        Vector3::new(12.125, 5.625, 12.125),
    );
    let hit = ellipsoid.ray_cast_local(&ray, f64::INFINITY, false).unwrap();
    assert!(is_unit(&hit.normal), "{hit:?}");
    let ellipsoid = Ellipsoid::<f32> {
        radii: Vector3::new(12.0, 0.0, 1.3570784e23),
    };
    let ray = Ray::new(Point3::origin(), Vector3::new(10.625, 7.875, -9.5));
    let hit = ellipsoid.ray_cast_local(&ray, 0.0, false).unwrap();
    assert!(is_unit(&hit.normal), "{hit:?}");
    // The flat axis is y: a hit on the disk faces ±y.
    assert_eq!(hit.normal.x.abs() + hit.normal.z.abs(), 0.0, "{hit:?}");
}

/// Found by `ray_cast` (`f64`, third round): a capsule with end points at
/// `−f64::MAX` and radius 1e300, turned, had a box with a NaN bound: its
/// local box reaches −∞ and +∞ on one axis, and the rotated terms summed to
/// `∞ − ∞`. Such a side of the world box is now unbounded.
#[test]
fn capsule_at_the_float_limit_turned_has_a_box_without_nan() {
    let max = f64::MAX;
    // Built field by field: the constructor refuses a radius of 1e300.
    let capsule = Capsule {
        a: Point3::new(-max, -max, -max),
        b: Point3::new(-max, -max, 1e-308),
        radius: 1e300,
    };
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(
        0.2931939109088333,
        -0.05720856798221137,
        -0.9081860167176055,
        0.2931939109088333,
    ));
    for y in [-max, 14.125] {
        let pose = Isometry3::from_parts(Translation3::new(0.0, y, 1e-15), rotation);
        let aabb = capsule.aabb(&pose);
        for i in 0..3 {
            assert!(!aabb.mins[i].is_nan() && !aabb.maxs[i].is_nan(), "{aabb:?}");
            assert!(aabb.mins[i] <= aabb.maxs[i], "{aabb:?}");
        }
    }
}

/// Found by `contact` (third round, most of its saved inputs): a box and a
/// triangle apart but within the margin got "closest points" 7.7 apart for
/// a margin of 6.75. `closest_points` answered from the SAT contact
/// routine, whose separation is the largest axis separation (a bound) and
/// whose points are not the closest ones. Convex pairs found apart now take
/// the convex fallback's exact points. Checked against sampled distances.
#[test]
fn box_and_triangle_apart_within_the_margin_get_their_closest_points() {
    use geom_core::dispatch::ClosestPoints;
    let table = table::<f64>();
    let cuboid = Cuboid::new(Vector3::new(10.625, 2.0, 0.0));
    let triangle = Triangle::new(
        Point3::new(10.875, 10.875, 10.875),
        Point3::new(10.875, 10.875, 0.0),
        Point3::new(10.875, 10.875, 0.0),
    );
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(
        0.013191051060632654,
        0.8574183189411225,
        0.0,
        0.5144509913646735,
    ));
    let pose_box = Isometry3::identity();
    let pose_triangle = Isometry3::from_parts(Translation3::new(0.0, 4.125, 0.0), rotation);
    let margin = 6.75;
    let answer = table
        .closest_points(&cuboid, &pose_box, &triangle, &pose_triangle, margin)
        .unwrap();
    // Sampled distance: the box's face points against the triangle's
    // segment (b = c), both in world space.
    let world_a = pose_triangle * triangle.a;
    let world_b = pose_triangle * triangle.b;
    let mut sampled = f64::INFINITY;
    for i in 0..=400 {
        let on_triangle = world_a + (world_b - world_a) * (i as f64 / 400.0);
        let clamped = Point3::new(
            on_triangle.x.clamp(-10.625, 10.625),
            on_triangle.y.clamp(-2.0, 2.0),
            0.0,
        );
        sampled = sampled.min((on_triangle - clamped).norm());
    }
    match answer {
        ClosestPoints::WithinMargin { point_a, point_b } => {
            let gap = (point_b - point_a).norm();
            assert!(gap <= margin, "{gap}");
            assert!(
                gap <= sampled + 1e-9 && gap >= sampled - 0.05,
                "{gap} vs sampled {sampled}"
            );
        }
        ClosestPoints::Disjoint => assert!(sampled > margin - 1e-9, "{sampled}"),
        ClosestPoints::Intersecting => panic!("apart by {sampled}"),
    }
}

/// Found by `ray_cast` (third round): points on a capsule's or a cone's
/// axis projected along the axis (to a point inside, 0.125 to 7.1 off the
/// surface): what was left of their offset after removing its axial part
/// was rounding, pointing anywhere. Such offsets now count as on the axis
/// (any perpendicular). Expected distances from the shapes' geometry.
#[test]
fn points_on_a_capsule_or_cone_axis_project_onto_the_surface() {
    use geom_prims::Cone;
    fn check<N: Real + Into<f64>>(shape: &dyn Shape<N>, point: Point3<N>, expected: f64, tolerance: f64) {
        let projection = shape
            .closest_point(&Isometry3::identity(), &point, false)
            .unwrap();
        let moved: f64 = (projection.point - point).norm().into();
        assert!(
            (moved - expected).abs() <= tolerance,
            "{shape:?} {point:?}: {projection:?}, moved {moved}"
        );
        let distance: f64 =
            nalgebra::try_convert(shape.distance(&Isometry3::identity(), &projection.point).unwrap())
                .unwrap();
        assert!(
            distance.abs() <= tolerance,
            "{shape:?} {point:?}: {projection:?} off by {distance}"
        );
    }
    check(
        &Capsule::from_points(Point3::origin(), Point3::new(13.375f32, 0.0, 0.0), 0.125),
        Point3::new(0.125, 0.0, 0.0),
        0.125,
        1e-6,
    );
    check(
        &Capsule::from_points(Point3::origin(), Point3::new(13.375f64, 0.0, 0.0), 0.125),
        Point3::new(0.125, 0.0, 0.0),
        0.125,
        1e-12,
    );
    // On a cone's axis at `a` from the apex: the side is a·r/√(h² + r²)
    // away, the base h − a.
    let cones = [
        (
            [13.125, 13.125, 13.125],
            [0.0, 0.0, 0.0],
            11.75,
            [5.625, 5.625, 5.625],
        ),
        (
            [-0.125, -0.125, -0.125],
            [10.625, 10.625, 10.625],
            10.625,
            [10.625, 10.625, 10.625],
        ),
        (
            [0.0, 0.0, 0.0],
            [12.625, 12.625, 12.625],
            12.625,
            [0.375, 0.375, 0.375],
        ),
    ];
    for (apex, base, radius, point) in cones {
        let (apex, base, point) = (Point3::from(apex), Point3::from(base), Point3::from(point));
        let height: f64 = (base - apex).norm();
        let along: f64 = (point - apex).norm();
        let expected = (along * radius / (height * height + radius * radius).sqrt()).min(height - along);
        check(
            &Cone::<f64>::from_points(apex, base, radius),
            point,
            expected,
            1e-9,
        );
        check(
            &Cone::<f32>::from_points(apex.cast(), base.cast(), radius as f32),
            point.cast(),
            expected,
            1e-5 * height,
        );
    }
}

/// Found by `contact` (`f32`, third round): a box posed with a quaternion
/// of length 1.0029 (nalgebra normalised it from subnormal components; an
/// orientation integrated without renormalising drifts the same way) got a
/// contact normal of length 1.0115: the routines rotate as if the
/// quaternion were unit. The dispatcher now renormalises a drifted
/// rotation first, so the answer is the renormalised pose's, bit for bit.
#[test]
fn drifted_rotation_is_renormalised_before_the_routines() {
    let table = table::<f32>();
    let thin = Cuboid::new(Vector3::new(2.0f32, 1e-12, 2.0));
    let cube = Cuboid::new(Vector3::new(2.0f32, 2.0, 2.0));
    let pose_thin = Isometry3::from_parts(
        Translation3::new(2.0, 2.0, 2.0),
        UnitQuaternion::from_quaternion(Quaternion::new(0.6354411, 0.6354411, 0.4368658, -0.03971507)),
    );
    let drifted = Quaternion::new(0.0f32, -3.8965987e-17, 0.0, -1.0028558);
    let pose_cube = Isometry3::from_parts(
        Translation3::new(0.0, 2.0, 0.0),
        UnitQuaternion::new_unchecked(drifted),
    );
    let renormalised = Isometry3::from_parts(
        Translation3::new(0.0, 2.0, 0.0),
        UnitQuaternion::new_unchecked(drifted / drifted.norm()),
    );
    let (mut out, mut expected) = (ContactManifolds::new(), ContactManifolds::new());
    table
        .contact(&thin, &pose_thin, &cube, &pose_cube, 0.0, &mut out)
        .unwrap();
    table
        .contact(&thin, &pose_thin, &cube, &renormalised, 0.0, &mut expected)
        .unwrap();
    assert!(out.points().count() > 0);
    for ((normal, point), (expected_normal, expected_point)) in out.points().zip(expected.points()) {
        assert!(is_unit(normal), "{normal:?}");
        assert_eq!((normal, point.depth), (expected_normal, expected_point.depth));
    }
    // A zero quaternion has no rotation to renormalise to.
    let zero = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 0.0)),
    );
    assert!(matches!(
        table.contact(&thin, &zero, &cube, &pose_cube, 0.0, &mut out),
        Err(GeomError::NonFinite { .. })
    ));
}

/// Found by `ray_cast` (third round, 3 saved inputs, `f64`): a ray from
/// inside a cone leaving exactly through the rim of its base reported a
/// hit at `t = 0`, 0.27 to 0.84 inside: the base test (`ρ² ≤ r²`) and the
/// lateral test (between the cap planes) both failed by rounding at the
/// rim, so the origin had no exit. The base test allows 8ε of slack.
/// Checked against marching the ray on the cone's own distance.
#[test]
fn ray_from_inside_a_cone_through_its_rim_exits_there() {
    use geom_prims::Cone;
    // apex, base, radius, ray origin, ray direction
    type Case = ([f64; 3], [f64; 3], f64, [f64; 3], [f64; 3]);
    let cases: [Case; 3] = [
        (
            [13.25, 0.0, 9.125],
            [9.125, 9.125, 9.125],
            9.125,
            [9.125, 4.125, 13.25],
            [0.0, 9.125, 9.125],
        ),
        (
            [0.0, -12.875, 0.0],
            [0.0, 9.5, 9.5],
            9.5,
            [7.5, 7.5, 7.5],
            [7.5, 7.5, 7.5],
        ),
        (
            [-4.75, 0.0, -12.25],
            [0.0, 0.0, 3.375],
            3.375,
            [-1.125, 2.25, 2.25],
            [2.25, 2.25, 2.25],
        ),
    ];
    for (apex, base, radius, origin, dir) in cases {
        let cone = Cone::from_points(apex.into(), base.into(), radius);
        let ray = Ray::new(Point3::from(origin), Vector3::from(dir));
        assert!(cone.distance_local(&ray.origin).unwrap() < 0.0);
        // March to the first point outside, then bisect.
        let outside = |t: f64| cone.distance_local(&(ray.origin + ray.dir * t)).unwrap() > 0.0;
        let mut high = 0.0;
        while !outside(high) {
            high += 1e-3;
        }
        let mut low = high - 1e-3;
        for _ in 0..60 {
            let middle = 0.5 * (low + high);
            if outside(middle) {
                high = middle
            } else {
                low = middle
            }
        }
        let hit = cone.ray_cast_local(&ray, f64::INFINITY, false).unwrap();
        assert!((hit.t - low).abs() < 1e-9, "{hit:?} vs {low}");
        assert!(cone.ray_cast_local(&ray, 0.0, false).is_none());
    }
}

/// Found by `ray_cast` (third round, 6 saved inputs, `f32`): rays lying in
/// the plane of a sliver triangle, along the line through two of its
/// vertices, hit at a `t` made of rounding noise, 0.13 to 12.7 away from
/// the triangle. A ray parallel to the plane within the rounding of `d·n`
/// now misses; rays that cross the plane keep their hits (checked on the
/// same triangles and on exact axis-aligned grazing rays).
#[test]
fn ray_in_the_plane_of_a_sliver_triangle_misses() {
    let cases: [[[f32; 3]; 3]; 3] = [
        [
            [11.75, 8.125, 0.01148897],
            [7.5, 7.5, 7.5],
            [13.625, 13.625, 13.625],
        ],
        [
            [2.0, 4.875, 11.84728],
            [8.125, 8.125, 8.125],
            [51.765625, 31.28125, -18.39624],
        ],
        [
            [0.04628505, 1.0, 7.625],
            [6.625, 6.625, 6.625],
            [43.63027, 38.265625, 1.0],
        ],
    ];
    for [a, b, c] in cases {
        let triangle = Triangle::new(a.into(), b.into(), c.into());
        let along = Ray::new(Point3::origin(), Vector3::new(1.0, 1.0, 1.0));
        if let Some(hit) = triangle.ray_cast_local(&along, f32::INFINITY, true) {
            // Any answer must at least lie on the triangle.
            let point = along.point_at(hit.t);
            let off = triangle.distance_local(&point).unwrap();
            assert!(off.abs() < 1e-3, "{hit:?} off by {off}");
        }
        // A ray through the triangle's centroid, across its plane, hits when
        // the triangle has a plane: its area (exact in f64 for these f32
        // vertices) well above the rounding of the f32 cross product.
        let centroid = Point3::from((Vector3::from(a) + Vector3::from(b) + Vector3::from(c)) / 3.0);
        let normal = (triangle.b - triangle.a).cross(&(triangle.c - triangle.a));
        let across = Ray::new(centroid + normal * 0.01, -normal);
        let (a64, b64, c64) = (
            Vector3::from(a).cast::<f64>(),
            Vector3::from(b).cast::<f64>(),
            Vector3::from(c).cast::<f64>(),
        );
        let area = (b64 - a64).cross(&(c64 - a64)).norm();
        let rounding = 8.0 * f32::EPSILON as f64 * (b64 - a64).norm() * (c64 - a64).norm();
        let hit = triangle.ray_cast_local(&across, f32::INFINITY, false);
        if area > 100.0 * rounding {
            let hit = hit.unwrap();
            assert!((hit.t - 0.01).abs() < 1e-4, "{hit:?}");
        } else {
            assert!(hit.is_none(), "sliver of area {area}: {hit:?}");
        }
    }
    // Exact grazing rays at 1e-7 rad still hit the unit right triangle.
    let right = Triangle::new(
        Point3::origin(),
        Point3::new(1.0f32, 0.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
    );
    let grazing = Ray::new(Point3::new(-1.0, 0.25, 1e-7), Vector3::new(1.0, 0.0, -1e-7));
    let hit = right.ray_cast_local(&grazing, f32::INFINITY, false).unwrap();
    assert_eq!(hit.t, 1.0);
}

/// Found by `ray_cast` (third round): a sphere of radius 4.3e-19 (`f32`,
/// just above the smallest size) hit by a ray got a normal of length
/// 1.003: the hit point's squared length is near the subnormal range. The
/// sphere kernel's normal goes through `with_length`.
#[test]
fn sphere_of_the_smallest_size_gets_unit_normals() {
    let sphere = Sphere::new(4.3199236e-19f32);
    for (origin, dir) in [
        ([0.0, 3.5, 0.0], [7.744433e-39, -0.125, 5.996655e-24]),
        ([1e-18, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        ([3e-19, 3e-19, -1e-18], [0.0, 0.0, 1.0]),
    ] {
        let ray = Ray::new(Point3::from(origin), Vector3::from(dir));
        for solid in [true, false] {
            if let Some(hit) = sphere.ray_cast_local(&ray, f32::INFINITY, solid) {
                assert!(is_unit(&hit.normal), "{ray:?} {hit:?}");
            }
        }
    }
}

/// Found by `ray_cast` (third round, `f64`): the end point of a turned
/// capsule's axis, mapped into the local frame a rounding away from it,
/// projected 2.1 inside the capsule: past the end, the offset from the
/// axis end was rounding noise pointing into the capsule. Offsets within
/// rounding of the axis (ends included) now take a perpendicular; the
/// projection is then on the cap's rim. Checked with the shape's distance.
#[test]
fn point_within_rounding_of_a_capsule_axis_end_projects_onto_the_surface() {
    let capsule = Capsule::<f64>::from_points(Point3::origin(), Point3::new(11.375, 11.375, 11.375), 11.375);
    let rotation = UnitQuaternion::new_unchecked(Quaternion::new(
        0.15053310200734188,
        0.5707713451111712,
        0.5707713451111712,
        0.5707713451111712,
    ));
    let pose = Isometry3::from_parts(Translation3::identity(), rotation);
    for point in [
        Point3::new(11.375, 11.375, 11.375),
        Point3::new(11.375, 11.375, 11.374999999999998),
        Point3::origin(),
        Point3::new(5.0, 5.0, 5.0),
    ] {
        for pose in [pose, Isometry3::identity()] {
            let projection = capsule.closest_point(&pose, &point, false).unwrap();
            let off = capsule.distance(&pose, &projection.point).unwrap();
            assert!(off.abs() < 1e-12, "{point:?}: {projection:?} off by {off}");
            let moved = (projection.point - point).norm();
            assert!((moved - 11.375).abs() < 1e-12, "{point:?}: moved {moved}");
        }
    }
}

/// Found by `ray_cast` (third round, `f32`): a zero-radius capsule touched
/// by a ray 1.3e-22 from its axis got a normal of length 0.995 (the radial
/// offset's square underflowed). The capsule's side normal goes through
/// `with_length`.
#[test]
fn ray_touching_a_zero_radius_capsule_gets_a_unit_normal() {
    let capsule = Capsule::from_points(Point3::origin(), Point3::new(2.625f32, 2.625, 2.625), 0.0);
    let pose = Isometry3::translation(1.2904016e-22, 3.375, 3.375);
    let ray = Ray::new(Point3::origin(), Vector3::new(0.0, 2.625, 2.625));
    for solid in [true, false] {
        if let Some(hit) = capsule.ray_cast(&pose, &ray, f32::INFINITY, solid) {
            assert!(is_unit(&hit.normal), "{hit:?}");
        }
    }
}

/// Found by `ray_cast` (after the third round): a ray starting on a
/// capsule's cap (4e-16 outside) and going in, cast hollow, reported the
/// cap sphere's far root, 0.29 inside the capsule: the capsule's inside
/// test and its cap sphere's rounded differently at such an origin. The
/// capsule now counts an origin inside either cap sphere by the sphere's
/// own test as inside.
#[test]
fn hollow_capsule_cast_from_a_point_of_a_cap_exits_on_the_surface() {
    let capsule = Capsule::<f64>::from_points(Point3::new(5.75, 11.25, 0.0), Point3::origin(), 11.25);
    let rotation = UnitQuaternion::new_unchecked(Quaternion::new(
        0.79110354f32 as f64,
        0.0,
        0.0,
        -0.61168224f32 as f64,
    ));
    let pose = Isometry3::from_parts(Translation3::new(11.25, 0.0, 0.0), rotation);
    let ray = Ray::new(Point3::origin(), Vector3::new(11.25, 0.0, -8.875));
    // The origin is on the surface: the hollow cast reports where the ray
    // leaves (or the origin itself, taken as outside), on the surface.
    let hit = capsule
        .ray_cast(&pose, &ray, 11.25, false)
        .expect("a ray from the surface going in leaves the capsule");
    let off = capsule.distance(&pose, &ray.point_at(hit.t)).unwrap();
    assert!(off.abs() < 1e-9, "{hit:?} off the surface by {off}");
}
