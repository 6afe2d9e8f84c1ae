//! GJK/EPA against the analytic pair routines of the default dispatcher, on
//! random poses: two independent computations of the same distances and
//! depths (the analytic routines never call GJK).

use geom::prelude::*;
use geom::prims::gjk::{GjkStatus, gjk_closest_points, penetration};
use geom_random::Rng;

/// A pose within `spread` of the origin, turned by up to 3.1 rad.
fn pose(rng: &mut Rng, spread: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::from(rng.direction() * rng.range(0.0, spread)),
        UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, 3.1)),
    )
}

fn shapes(rng: &mut Rng) -> [Box<dyn Shape<f64>>; 3] {
    let half = rng.range(0.2, 1.0);
    [
        Box::new(Sphere::new(rng.range(0.2, 1.0))),
        Box::new(Capsule::from_points(
            Point3::new(0.0, -half, 0.0),
            Point3::new(0.0, half, 0.0),
            rng.range(0.1, 0.6),
        )),
        Box::new(Cuboid::new(Vector3::new(
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
        ))),
    ]
}

/// The analytic deepest depth of the pair (`None`: nothing within `margin`).
fn analytic_depth(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pa: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pb: &Isometry3<f64>,
    margin: f64,
    out: &mut ContactManifolds<f64>,
) -> Option<f64> {
    table.contact(a, pa, b, pb, margin, out).unwrap();
    out.points().map(|(_, p)| p.depth).reduce(f64::max)
}

#[test]
fn gjk_distances_and_epa_depths_match_the_analytic_routines() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::from_state(0x9E37_79B9_7F4A_7C15);
    let mut out = ContactManifolds::new();
    let (mut separated, mut overlapping) = (0, 0);
    for _ in 0..400 {
        let [sphere_a, capsule_a, box_a] = shapes(&mut rng);
        let [sphere_b, capsule_b, box_b] = shapes(&mut rng);
        let pairs: [(&dyn Shape<f64>, &dyn Shape<f64>, bool); 6] = [
            (&*sphere_a, &*sphere_b, true),
            (&*sphere_a, &*capsule_b, true),
            (&*capsule_a, &*capsule_b, true),
            (&*sphere_a, &*box_b, true),
            (&*capsule_a, &*box_b, false),
            (&*box_a, &*box_b, false),
        ];
        for (a, b, exact_depth) in pairs {
            let (pa, pb) = (pose(&mut rng, 1.5), pose(&mut rng, 1.5));
            let gjk = gjk_closest_points(a, &pa, b, &pb, f64::INFINITY).unwrap();
            assert!(gjk.converged);
            if gjk.status == GjkStatus::Separated {
                // Separated: the analytic closest points give the same
                // distance (box–box has no closest-points routine: its
                // contact reports a separation bound instead).
                if a.kind() == ShapeKind::Cuboid {
                    continue;
                }
                let analytic = table.distance(a, &pa, b, &pb).unwrap();
                let scale = 1.0 + gjk.distance;
                assert!(
                    (analytic - gjk.distance).abs() <= 1e-9 * scale,
                    "{:?}-{:?}: analytic {analytic} gjk {}",
                    a.kind(),
                    b.kind(),
                    gjk.distance
                );
                separated += 1;
            } else {
                let epa = penetration(a, &pa, b, &pb, 0.0).unwrap().unwrap();
                let analytic = analytic_depth(&table, a, &pa, b, &pb, 0.0, &mut out).unwrap();
                // Exact routines agree with EPA; the box routines prefer a
                // face axis unless an edge axis is 2% shallower.
                let tolerance = 1e-9 * (1.0 + epa.depth);
                if exact_depth {
                    assert!(
                        (analytic - epa.depth).abs() <= tolerance,
                        "{:?}-{:?}: analytic {analytic} epa {}",
                        a.kind(),
                        b.kind(),
                        epa.depth
                    );
                } else {
                    assert!(
                        analytic >= epa.depth - tolerance && analytic <= 1.02 * epa.depth + tolerance,
                        "{:?}-{:?}: analytic {analytic} epa {}",
                        a.kind(),
                        b.kind(),
                        epa.depth
                    );
                }
                overlapping += 1;
            }
        }
    }
    assert!(
        separated > 300 && overlapping > 300,
        "{separated} separated, {overlapping} overlapping"
    );
}
