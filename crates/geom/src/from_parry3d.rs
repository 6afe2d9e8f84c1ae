//! Coming from parry3d: what is named or laid out differently.
//!
//! | parry3d 0.31 | geom |
//! |---|---|
//! | `Ball::new(r)` | [`Sphere::new(r)`](crate::Sphere::new) |
//! | `Cuboid::new(half_extents)` | [`Cuboid::new(half_extents)`](crate::Cuboid::new) |
//! | `Capsule::new(a, b, r)`, `Capsule::new_y(half_height, r)` | [`Capsule::from_points(a, b, r)`](crate::Capsule::from_points): any axis, always from its two ends |
//! | `Cylinder::new(half_height, r)` (along y, centred) | [`Cylinder::from_points(p0, p1, r)`](crate::Cylinder::from_points): the two cap centres, any axis |
//! | `Cone::new(half_height, r)` (apex at `+half_height` on y) | [`Cone::from_points(apex, base, r)`](crate::Cone::from_points) |
//! | `HalfSpace::new(normal)` (a unit normal, the plane through the local origin) | [`HalfSpace::new(normal, offset)`](crate::HalfSpace::new): any non-zero normal, `normal·x <= offset` |
//! | `HeightField::new(heights_zx, scale)` | [`HeightField::new(origin, cell_size, rows, cols, heights)`](crate::HeightField::new), layout below |
//! | `Pose` (glam) / `Isometry` | [`Isometry3`](nalgebra::Isometry3) (nalgebra); with the `glam` feature, `Isometry3::from((Vec3, Quat))` and back |
//! | `shape.cast_ray_and_get_normal(&pose, &ray, max_toi, solid)` → `RayIntersection { time_of_impact, normal, feature }` | [`shape.ray_cast(&pose, &ray, max_t, solid)`](crate::Shape::ray_cast) → [`RayHit`](crate::RayHit) `{ t, normal, feature }` |
//! | `shape.project_point(&pose, &point, solid)` → `PointProjection { point, is_inside }` | [`shape.closest_point(&pose, &point, solid)`](crate::Shape::closest_point), the same fields |
//! | `query::contact(&pose1, g1, &pose2, g2, prediction)` → one `Contact` | [`default_dispatcher().contact(g1, &pose1, g2, &pose2, margin, &mut out)`](crate::DispatchTable::contact) → manifolds of up to four points |
//! | `query::distance`, `query::closest_points` | [`DispatchTable::distance`](crate::DispatchTable::distance), [`DispatchTable::closest_points`](crate::DispatchTable::closest_points) |
//! | `DefaultQueryDispatcher.contact_manifolds(...)` with a workspace | the same `contact`, into a reused [`ContactManifolds`](crate::ContactManifolds) (no workspace) |
//! | `query::cast_shapes` (time of impact) | [`sweep_shape`](crate::sweep_shape), [`sweep_obstacles`](crate::sweep_obstacles) (spheres, ellipsoids, capsules exactly; others by conservative advancement) |
//! | `SupportMap` for a custom shape | [`Shape::support_local`](crate::Shape::support_local), with [`prims::convex`](crate::prims::convex) for its rays and projections |
//!
//! Pair arguments come shape first, then its pose (`a, pose_a, b,
//! pose_b`); contact normals point from `a` to `b` and depths are positive
//! when overlapping (parry's `dist` is the negative of geom's `depth`).
//! Queries are generic over the scalar: `Sphere<f32>` and `Sphere<f64>`
//! live side by side, where parry picks one per crate (`parry3d` or
//! `parry3d-f64`).
//!
//! # Heightfield layout
//!
//! parry3d's `heights_zx` has its rows along z and its columns along x,
//! spans `scale` centred on the origin, and splits each cell from
//! `(x_i, z_j+1)` to `(x_i+1, z_j)`. geom's rows advance along x: sample
//! `(i, j)` sits at `origin + (i·dx, h, j·dz)` and is `heights[i·cols + j]`;
//! a cell is split from `(i, j)` to `(i+1, j+1)` unless listed in
//! [`HeightFieldDesc::flipped_cells`](crate::HeightFieldDesc::flipped_cells).
//! The same terrain:
//!
//! ```
//! use geom::prelude::*;
//!
//! // parry3d: `HeightField::new(heights_zx, Vector::new(sx, 1.0, sz))` with
//! // `heights_zx[(row_z, col_x)]` (here a row-major copy of that matrix).
//! let (rows_z, cols_x, sx, sz) = (3, 4, 6.0f32, 4.0f32);
//! let heights_zx: Vec<f32> = (0..rows_z * cols_x).map(|k| k as f32 * 0.1).collect();
//! let at_zx = |z: usize, x: usize| heights_zx[z * cols_x + x];
//!
//! // geom: rows along x, columns along z, the corner at (−sx/2, 0, −sz/2).
//! let heights: Vec<f32> = (0..cols_x * rows_z).map(|k| at_zx(k % rows_z, k / rows_z)).collect();
//! let cell = [sx / (cols_x - 1) as f32, sz / (rows_z - 1) as f32];
//! let mut desc = HeightFieldDesc::new(Point3::new(-sx / 2.0, 0.0, -sz / 2.0), cell, cols_x, rows_z, heights);
//! desc.flipped_cells = (0..(cols_x - 1) * (rows_z - 1)).collect(); // parry's diagonal
//! let field = HeightField::try_from_desc(desc).unwrap();
//!
//! // The sample at x index 2, z index 1 holds the same height.
//! let (x, z) = (-sx / 2.0 + 2.0 * cell[0], -sz / 2.0 + cell[1]);
//! assert_eq!(field.surface_y_at(x, z), Some(at_zx(1, 2)));
//! ```
//!
//! `benches/src/lib.rs` (module `terrain`) builds one terrain both ways
//! and checks that 2000 rays hit both at the same `t` before timing them.
