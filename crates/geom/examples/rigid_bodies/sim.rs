//! A small impulse-based rigid-body world over a heightfield and a
//! triangle mesh, written against geom's public API only: the pairs to
//! test come from a [`geom::World`]'s broad phase (its bounding-volume
//! tree), every contact from `geom::default_dispatcher()`.
//!
//! The solver is the usual sequential-impulse scheme (Catto, "Iterative
//! Dynamics with Temporal Coherence", GDC 2005): per step, gravity, then
//! contacts within a speculative margin, then `iterations` passes over
//! every contact point applying a clamped normal impulse (the accumulated
//! impulse stays >= 0) and Coulomb friction on two tangents, then
//! semi-implicit Euler integration. A contact that is still apart lets the
//! bodies close the gap in this step and no more (speculative contacts:
//! nothing tunnels at these speeds); an overlapping one is pushed apart by
//! a fraction of its depth beyond a small slop (Baumgarte).

use std::sync::Arc;

use geom::nalgebra::Matrix3;
use geom::prelude::*;
use geom::world::Handle;

/// One moving body: a shape, its pose and velocities, and mass properties
/// (uniform density, principal axes along the shape's local axes).
#[derive(Debug)]
pub struct Body {
    /// A label for reports.
    pub name: String,
    /// The shape in its local frame (centre of mass at the origin).
    pub shape: Arc<dyn Shape<f64>>,
    /// Local-to-world pose.
    pub pose: Isometry3<f64>,
    /// Velocity of the centre of mass.
    pub linear_velocity: Vector3<f64>,
    /// Angular velocity, world frame.
    pub angular_velocity: Vector3<f64>,
    inverse_mass: f64,
    /// Inverse principal moments, local frame.
    inverse_inertia: Vector3<f64>,
}

impl Body {
    fn new(
        name: String,
        shape: Arc<dyn Shape<f64>>,
        mass: f64,
        inertia: Vector3<f64>,
        pose: Isometry3<f64>,
    ) -> Self {
        Body {
            name,
            shape,
            pose,
            linear_velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
            inverse_mass: 1.0 / mass,
            inverse_inertia: inertia.map(|i| 1.0 / i),
        }
    }

    /// A body symmetric about its local y axis: moment `axial` about it,
    /// `across` about any axis through the centre across it.
    fn about_y(
        name: &str,
        shape: Arc<dyn Shape<f64>>,
        mass: f64,
        axial: f64,
        across: f64,
        pose: Isometry3<f64>,
    ) -> Self {
        Body::new(
            name.into(),
            shape,
            mass,
            Vector3::new(across, axial, across),
            pose,
        )
    }

    /// A solid ball of unit density.
    pub fn sphere(name: &str, radius: f64, pose: Isometry3<f64>) -> Self {
        let mass = 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let moment = 0.4 * mass * radius * radius;
        Body::new(
            name.into(),
            Arc::new(Sphere::new(radius)),
            mass,
            Vector3::repeat(moment),
            pose,
        )
    }

    /// A capsule along its local y axis (`half_height` from the centre to
    /// each end of the core segment), unit density; moments of the
    /// cylinder plus two half-balls, each taken about the centre.
    pub fn capsule(name: &str, radius: f64, half_height: f64, pose: Isometry3<f64>) -> Self {
        use std::f64::consts::PI;
        let cylinder_mass = PI * radius * radius * 2.0 * half_height;
        let ball_mass = 4.0 / 3.0 * PI * radius.powi(3);
        let mass = cylinder_mass + ball_mass;
        let axial = 0.5 * cylinder_mass * radius * radius + 0.4 * ball_mass * radius * radius;
        let cylinder_across =
            cylinder_mass * (3.0 * radius * radius + 4.0 * half_height * half_height) / 12.0;
        // Two half-balls, their centres of mass 3r/8 past the segment ends.
        let offset = half_height + 0.375 * radius;
        let ball_across =
            0.4 * ball_mass * radius * radius + ball_mass * (offset * offset - (0.375 * radius).powi(2));
        let across = cylinder_across + ball_across;
        let shape = Capsule::from_points(
            Point3::new(0.0, -half_height, 0.0),
            Point3::new(0.0, half_height, 0.0),
            radius,
        );
        Body::about_y(name, Arc::new(shape), mass, axial, across, pose)
    }

    /// A box of unit density.
    pub fn cuboid(name: &str, half_extents: Vector3<f64>, pose: Isometry3<f64>) -> Self {
        let size = half_extents * 2.0;
        let mass = size.x * size.y * size.z;
        let inertia = Vector3::new(
            size.y * size.y + size.z * size.z,
            size.x * size.x + size.z * size.z,
            size.x * size.x + size.y * size.y,
        ) * (mass / 12.0);
        Body::new(
            name.into(),
            Arc::new(Cuboid::new(half_extents)),
            mass,
            inertia,
            pose,
        )
    }

    /// A capped cylinder along its local y axis, unit density.
    pub fn cylinder(name: &str, radius: f64, half_height: f64, pose: Isometry3<f64>) -> Self {
        let mass = std::f64::consts::PI * radius * radius * 2.0 * half_height;
        let axial = 0.5 * mass * radius * radius;
        let across = mass * (3.0 * radius * radius + 4.0 * half_height * half_height) / 12.0;
        let shape = Cylinder::from_points(
            Point3::new(0.0, -half_height, 0.0),
            Point3::new(0.0, half_height, 0.0),
            radius,
        );
        Body::about_y(name, Arc::new(shape), mass, axial, across, pose)
    }

    /// A solid cone along its local y axis, apex up, unit density: the
    /// centre of mass (the origin) a quarter of the height above the base.
    pub fn cone(name: &str, radius: f64, height: f64, pose: Isometry3<f64>) -> Self {
        let mass = std::f64::consts::PI * radius * radius * height / 3.0;
        let axial = 0.3 * mass * radius * radius;
        let across = mass * (3.0 / 20.0 * radius * radius + 3.0 / 80.0 * height * height);
        let shape = Cone::from_points(
            Point3::new(0.0, 0.75 * height, 0.0),
            Point3::new(0.0, -0.25 * height, 0.0),
            radius,
        );
        Body::about_y(name, Arc::new(shape), mass, axial, across, pose)
    }

    /// The centre of mass, world frame.
    pub fn center(&self) -> Point3<f64> {
        Point3::from(self.pose.translation.vector)
    }

    /// `I⁻¹` in world axes: `R diag(I⁻¹) Rᵀ`.
    fn inverse_inertia_world(&self) -> Matrix3<f64> {
        let rotation = self.pose.rotation.to_rotation_matrix();
        rotation.matrix() * Matrix3::from_diagonal(&self.inverse_inertia) * rotation.matrix().transpose()
    }

    /// The velocity of the body's material point at world `point`.
    fn velocity_at(&self, point: &Point3<f64>) -> Vector3<f64> {
        self.linear_velocity + self.angular_velocity.cross(&(point - self.center()))
    }
}

/// Solver settings (SI units: metres, seconds).
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Gravity.
    pub gravity: Vector3<f64>,
    /// Velocity passes over the contacts per step.
    pub iterations: usize,
    /// Contacts are gathered this far apart (speculative contacts).
    pub margin: f64,
    /// Overlap tolerated without correction.
    pub slop: f64,
    /// Fraction of the overlap beyond `slop` removed per step.
    pub baumgarte: f64,
    /// Coulomb friction coefficient.
    pub friction: f64,
    /// Rolling resistance: the largest resisting torque per unit normal
    /// impulse, in metres (Box2D v3's rolling resistance).
    pub rolling_resistance: f64,
    /// Linear and angular damping rates, per second.
    pub damping: (f64, f64),
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            gravity: Vector3::new(0.0, -9.81, 0.0),
            iterations: 16,
            margin: 0.05,
            slop: 0.005,
            baumgarte: 0.2,
            friction: 0.6,
            rolling_resistance: 0.02,
            damping: (0.05, 0.3),
        }
    }
}

/// One contact point as a velocity constraint.
#[derive(Clone, Copy, Debug)]
struct Constraint {
    /// `None` for the ground.
    body_a: Option<usize>,
    body_b: usize,
    /// Unit normal from `a` to `b`.
    normal: Vector3<f64>,
    tangents: [Vector3<f64>; 2],
    point: Point3<f64>,
    /// The velocity along the normal the step must reach at least.
    target_normal_velocity: f64,
    normal_mass: f64,
    tangent_mass: [f64; 2],
    normal_impulse: f64,
    tangent_impulse: [f64; 2],
    rolling_impulse: Vector3<f64>,
}

/// What an object of the broad phase is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Object {
    /// Static scenery (identity pose).
    Scenery,
    /// `bodies[i]`.
    Body(usize),
}

/// Bodies over static scenery: a heightfield and a mesh.
#[derive(Debug)]
pub struct World {
    /// The ground (static, identity pose).
    pub ground: Arc<HeightField<f64>>,
    /// A dish-shaped block standing on the ground (a closed mesh, static,
    /// identity pose).
    pub dish: Arc<TriMesh<f64>>,
    /// The moving bodies.
    pub bodies: Vec<Body>,
    /// Solver settings.
    pub settings: Settings,
    dispatcher: DispatchTable<f64>,
    /// Everything, for the broad phase: boxes widened so that the
    /// candidate pairs include every two objects within the margin.
    objects: geom::World<f64, Object>,
    /// `handles[i]` is `bodies[i]`'s object.
    handles: Vec<Handle>,
    pairs: Vec<(Handle, Handle)>,
    manifolds: ContactManifolds<f64>,
    constraints: Vec<Constraint>,
    /// Contact points gathered in the last step.
    pub last_contact_count: usize,
    /// The largest overlap seen in the last step's contacts.
    pub last_max_depth: f64,
}

/// Two unit vectors completing `n` to an orthonormal frame.
fn tangents_of(n: &Vector3<f64>) -> [Vector3<f64>; 2] {
    let helper = if n.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let t1 = n.cross(&helper).normalize();
    [t1, n.cross(&t1)]
}

impl World {
    /// A world with the default settings and dispatcher.
    pub fn new(ground: HeightField<f64>, dish: TriMesh<f64>, bodies: Vec<Body>) -> Self {
        let settings = Settings::default();
        let mut objects = geom::World::with_margin(settings.margin).expect("a finite margin");
        let (ground, dish) = (Arc::new(ground), Arc::new(dish));
        objects.insert(ground.clone(), Isometry3::identity(), Object::Scenery);
        objects.insert(dish.clone(), Isometry3::identity(), Object::Scenery);
        let handles = bodies
            .iter()
            .enumerate()
            .map(|(i, body)| objects.insert(body.shape.clone(), body.pose, Object::Body(i)))
            .collect();
        World {
            ground,
            dish,
            bodies,
            settings,
            dispatcher: geom::default_dispatcher(),
            objects,
            handles,
            pairs: Vec::new(),
            manifolds: ContactManifolds::new(),
            constraints: Vec::new(),
            last_contact_count: 0,
            last_max_depth: 0.0,
        }
    }

    /// Adds a body (its object joins the broad phase).
    pub fn add_body(&mut self, body: Body) {
        let handle = self
            .objects
            .insert(body.shape.clone(), body.pose, Object::Body(self.bodies.len()));
        self.handles.push(handle);
        self.bodies.push(body);
    }

    /// Every body's pose, a line each: `x y z i j k w` (translation, then
    /// the rotation's unit quaternion), each number written so that it
    /// reads back to the same bits.
    pub fn poses_text(&self) -> String {
        let mut text = String::new();
        for body in &self.bodies {
            let (t, q) = (body.pose.translation.vector, body.pose.rotation);
            let numbers = [t.x, t.y, t.z, q.i, q.j, q.k, q.w].map(|v| format!("{v:?}"));
            text.push_str(&numbers.join(" "));
            text.push('\n');
        }
        text
    }

    /// Advances the world by `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        let settings = self.settings;
        for body in &mut self.bodies {
            body.linear_velocity += settings.gravity * dt;
            body.linear_velocity /= 1.0 + settings.damping.0 * dt;
            body.angular_velocity /= 1.0 + settings.damping.1 * dt;
        }
        self.gather_contacts(dt);
        for _ in 0..settings.iterations {
            for k in 0..self.constraints.len() {
                self.solve(k);
            }
        }
        for body in &mut self.bodies {
            body.pose.translation.vector += body.linear_velocity * dt;
            let turn = UnitQuaternion::from_scaled_axis(body.angular_velocity * dt);
            body.pose.rotation = UnitQuaternion::new_normalize(*(turn * body.pose.rotation).quaternion());
        }
    }

    /// Contacts of every pair the broad phase finds within the margin
    /// (scenery against scenery skipped), as constraints. Pairs come
    /// sorted by handle: the scenery's contacts first, then the bodies'
    /// in the order they were added.
    fn gather_contacts(&mut self, dt: f64) {
        let margin = self.settings.margin;
        self.constraints.clear();
        self.last_contact_count = 0;
        self.last_max_depth = 0.0;
        for (body, &handle) in self.bodies.iter().zip(&self.handles) {
            self.objects.set_pose(handle, body.pose);
        }
        let mut pairs = std::mem::take(&mut self.pairs);
        self.objects.candidate_pairs(&mut pairs);
        for &(first, second) in &pairs {
            // `b` is a body; `a` is the other body (the lower index) or
            // the scenery, named by its handle.
            let (a, b, handle_a) = match (self.objects.data(first), self.objects.data(second)) {
                (Some(&Object::Body(a)), Some(&Object::Body(b))) => (Some(a), b, first),
                (Some(Object::Scenery), Some(&Object::Body(b))) => (None, b, first),
                (Some(&Object::Body(b)), Some(Object::Scenery)) => (None, b, second),
                _ => continue,
            };
            let (shape_a, pose_a, _) = self.objects.get(handle_a).expect("a live object");
            let body = &self.bodies[b];
            self.dispatcher
                .contact(
                    shape_a.as_ref(),
                    pose_a,
                    body.shape.as_ref(),
                    &body.pose,
                    margin,
                    &mut self.manifolds,
                )
                .expect("every pair of shapes here has a routine");
            self.add_constraints(a, b, dt);
        }
        self.pairs = pairs;
    }

    fn add_constraints(&mut self, body_a: Option<usize>, body_b: usize, dt: f64) {
        let settings = self.settings;
        for (normal, point) in self.manifolds.points() {
            self.last_contact_count += 1;
            self.last_max_depth = self.last_max_depth.max(point.depth);
            let at = Point3::from((point.point_a.coords + point.point_b.coords) * 0.5);
            let tangents = tangents_of(normal);
            let mass_along = |direction: &Vector3<f64>| {
                let mut inverse = 0.0;
                for body in body_a
                    .iter()
                    .map(|&a| &self.bodies[a])
                    .chain([&self.bodies[body_b]])
                {
                    let r = at - body.center();
                    let rn = r.cross(direction);
                    inverse += body.inverse_mass + rn.dot(&(body.inverse_inertia_world() * rn));
                }
                1.0 / inverse
            };
            let target_normal_velocity = if point.depth > 0.0 {
                settings.baumgarte * (point.depth - settings.slop).max(0.0) / dt
            } else {
                point.depth / dt
            };
            self.constraints.push(Constraint {
                body_a,
                body_b,
                normal: *normal,
                tangents,
                point: at,
                target_normal_velocity,
                normal_mass: mass_along(normal),
                tangent_mass: [mass_along(&tangents[0]), mass_along(&tangents[1])],
                normal_impulse: 0.0,
                tangent_impulse: [0.0; 2],
                rolling_impulse: Vector3::zeros(),
            });
        }
    }

    /// The velocity of `b` relative to `a` at the constraint's point.
    fn relative_velocity(&self, c: &Constraint) -> Vector3<f64> {
        let vb = self.bodies[c.body_b].velocity_at(&c.point);
        let va = c
            .body_a
            .map_or(Vector3::zeros(), |a| self.bodies[a].velocity_at(&c.point));
        vb - va
    }

    /// Applies `impulse` to `b` at the point and its opposite to `a`.
    fn apply(&mut self, c: &Constraint, impulse: Vector3<f64>) {
        let mut push = |index: usize, impulse: Vector3<f64>| {
            let body = &mut self.bodies[index];
            let r = c.point - body.center();
            body.linear_velocity += impulse * body.inverse_mass;
            body.angular_velocity += body.inverse_inertia_world() * r.cross(&impulse);
        };
        push(c.body_b, impulse);
        if let Some(a) = c.body_a {
            push(a, -impulse);
        }
    }

    fn solve(&mut self, k: usize) {
        let mut c = self.constraints[k];
        let vn = self.relative_velocity(&c).dot(&c.normal);
        let total = (c.normal_impulse + c.normal_mass * (c.target_normal_velocity - vn)).max(0.0);
        let delta = total - c.normal_impulse;
        c.normal_impulse = total;
        self.apply(&c, c.normal * delta);
        let limit = self.settings.friction * c.normal_impulse;
        for t in 0..2 {
            let vt = self.relative_velocity(&c).dot(&c.tangents[t]);
            let total = (c.tangent_impulse[t] - c.tangent_mass[t] * vt).clamp(-limit, limit);
            let delta = total - c.tangent_impulse[t];
            c.tangent_impulse[t] = total;
            self.apply(&c, c.tangents[t] * delta);
        }
        self.resist_rolling(&mut c);
        self.constraints[k] = c;
    }

    /// An angular impulse against the bodies' relative spin, its
    /// accumulated size at most `rolling_resistance` times the normal
    /// impulse: balls stop rolling on gentle slopes as real ones do.
    fn resist_rolling(&mut self, c: &mut Constraint) {
        let spin_a = c
            .body_a
            .map_or(Vector3::zeros(), |a| self.bodies[a].angular_velocity);
        let relative = self.bodies[c.body_b].angular_velocity - spin_a;
        let Some(axis) = relative.try_normalize(1e-12) else {
            return;
        };
        let mut inverse_inertia = self.bodies[c.body_b].inverse_inertia_world();
        if let Some(a) = c.body_a {
            inverse_inertia += self.bodies[a].inverse_inertia_world();
        }
        let mass = 1.0 / axis.dot(&(inverse_inertia * axis));
        let limit = self.settings.rolling_resistance * c.normal_impulse;
        let wanted = c.rolling_impulse - axis * (mass * relative.norm());
        let total = if wanted.norm() > limit {
            wanted * (limit / wanted.norm())
        } else {
            wanted
        };
        let delta = total - c.rolling_impulse;
        c.rolling_impulse = total;
        let body = &mut self.bodies[c.body_b];
        body.angular_velocity += body.inverse_inertia_world() * delta;
        if let Some(a) = c.body_a {
            let body = &mut self.bodies[a];
            body.angular_velocity -= body.inverse_inertia_world() * delta;
        }
    }

    /// The height of the highest scenery surface (ground or dish) at
    /// (`x`, `z`), if any is there.
    pub fn scenery_y_at(&self, x: f64, z: f64) -> Option<f64> {
        let down = Ray::new(Point3::new(x, 100.0, z), -Vector3::y());
        let dish = self
            .dish
            .ray_cast(&Isometry3::identity(), &down, f64::INFINITY, false)
            .map(|hit| 100.0 - hit.t);
        match (self.ground.surface_y_at(x, z), dish) {
            (Some(g), Some(d)) => Some(g.max(d)),
            (g, d) => g.or(d),
        }
    }

    /// The fastest speed of any body's material point, bounded by
    /// `|v| + |ω|·(bounding radius)`.
    pub fn max_point_speed(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| {
                b.linear_velocity.norm() + b.angular_velocity.norm() * b.shape.local_aabb().origin_reach()
            })
            .fold(0.0, f64::max)
    }
}

/// Where the ground has a flat terrace (centre, flat radius, radius where
/// the bowl takes over again).
pub const TERRACE: (f64, f64, f64, f64) = (6.5, -6.5, 3.0, 4.5);

/// The scene of the example and its test: a bowl of rolling bumps,
/// 24 m × 24 m, eleven bodies dropped from 2–6 m, some onto others, and
/// on a flat terrace a stack of three boxes, a standing cylinder and a
/// cone on its base, set down a hair above their supports.
pub fn demo_world() -> World {
    let (rows, cols, cell) = (49, 49, 0.5);
    let origin = Point3::new(-12.0, 0.0, -12.0);
    let bowl = |x: f64, z: f64| 0.012 * (x * x + z * z) + 0.25 * (0.8 * x).sin() * (0.6 * z).cos();
    let (tx, tz, flat, outer) = TERRACE;
    let level = bowl(tx, tz);
    let mut heights = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let (x, z) = (origin.x + i as f64 * cell, origin.z + j as f64 * cell);
            // The terrace's weight: 1 within `flat`, easing to 0 at `outer`.
            let r = ((x - tx).powi(2) + (z - tz).powi(2)).sqrt();
            let s = ((outer - r) / (outer - flat)).clamp(0.0, 1.0);
            let weight = s * s * (3.0 - 2.0 * s);
            heights.push(if weight == 1.0 {
                level
            } else {
                bowl(x, z) * (1.0 - weight) + level * weight
            });
        }
    }
    // Every cell split along its other diagonal, from sample (i + 1, j)
    // to (i, j + 1): the way parry3d splits a heightfield's cells, so the
    // benchmarks' frame of this scene gives both libraries the same
    // triangles.
    let mut desc = HeightFieldDesc::new(origin, [cell, cell], rows, cols, heights);
    desc.flipped_cells = (0..(rows - 1) * (cols - 1)).collect();
    let ground = HeightField::try_from_desc(desc).expect("valid ground");
    let at = |x: f64, y: f64, z: f64, tilt: f64| {
        Isometry3::from_parts(
            Translation3::new(x, y, z),
            UnitQuaternion::from_euler_angles(tilt, 0.7 * tilt, 0.3 * tilt),
        )
    };
    let gap = 0.002;
    let yawed = |x: f64, y: f64, z: f64, yaw: f64| Isometry3::new(Vector3::new(x, y, z), Vector3::y() * yaw);
    let layer = Vector3::new(0.5, 0.2, 0.4);
    let mut bodies = vec![
        Body::sphere("sphere 1", 0.4, at(-3.0, 3.0, -2.0, 0.0)),
        Body::sphere("sphere 2", 0.3, at(2.5, 4.0, 1.0, 0.0)),
        Body::sphere("sphere 3", 0.5, at(0.2, 2.5, 3.5, 0.0)),
        Body::sphere("sphere 4", 0.35, at(0.0, 5.5, 0.2, 0.0)),
        Body::capsule("capsule 1", 0.25, 0.5, at(-1.0, 3.0, 0.0, 1.2)),
        Body::capsule("capsule 2", 0.3, 0.4, at(3.5, 2.5, -2.5, 0.4)),
        Body::capsule("capsule 3", 0.2, 0.6, at(0.1, 4.5, 0.0, 0.9)),
        Body::cuboid("box 1", Vector3::new(0.4, 0.3, 0.5), at(1.5, 3.0, -1.0, 0.5)),
        Body::cuboid("box 2", Vector3::new(0.3, 0.3, 0.3), at(-2.0, 4.0, 2.5, 0.8)),
        Body::cuboid("box 3", Vector3::new(0.6, 0.2, 0.4), at(0.0, 2.0, 0.0, 0.2)),
        Body::cylinder("cylinder", 0.35, 0.4, at(-0.5, 6.0, -3.0, 0.6)),
    ];
    for (k, yaw) in [0.0, 0.3, -0.2].into_iter().enumerate() {
        let y = level + layer.y * (2 * k + 1) as f64 + gap * (k + 1) as f64;
        bodies.push(Body::cuboid(
            &format!("stack {}", k + 1),
            layer,
            yawed(tx, y, tz, yaw),
        ));
    }
    bodies.push(Body::cylinder(
        "standing cylinder",
        0.3,
        0.5,
        yawed(tx + 1.6, level + 0.5 + gap, tz + 0.4, 0.0),
    ));
    bodies.push(Body::cone(
        "standing cone",
        0.45,
        1.0,
        yawed(tx - 1.4, level + 0.25 + gap, tz - 0.8, 0.0),
    ));
    let (cx, cz, radius) = DISH;
    let dish_at = |dx: f64, y: f64, dz: f64, tilt: f64| at(cx + dx, y, cz + dz, tilt);
    bodies.extend([
        Body::sphere("dish sphere", 0.3, dish_at(-0.6, 4.5, -0.4, 0.0)),
        Body::cuboid(
            "dish box",
            Vector3::new(0.3, 0.2, 0.25),
            dish_at(0.9, 4.0, 0.5, 0.6),
        ),
        Body::capsule("dish capsule", 0.2, 0.35, dish_at(-0.7, 5.0, 0.9, 1.0)),
        Body::cylinder("dish cylinder", 0.3, 0.25, dish_at(0.5, 5.5, -0.9, 0.4)),
    ]);
    World::new(ground, dish_block(cx, cz, radius), bodies)
}

/// The demo's scene with `count` bodies (at least the demo's 20): the
/// demo's, and more of the five kinds in turn (sphere, capsule, box,
/// cylinder, cone; sizes 0.2–0.45 m) dropped from 1.5–3.3 m above the
/// scenery (higher where a body already hangs) along a golden-angle spiral 4–10 m from the bowl's centre, so
/// that they land on the ground, in the dish and on the terrace, and roll
/// together in the bowl. The benchmarks' physics frame is this scene at
/// 100 bodies, settled.
pub fn crowded_world(count: usize) -> World {
    let mut world = demo_world();
    let extra = count.saturating_sub(world.bodies.len());
    let (dish_x, dish_z, dish_radius) = DISH;
    for k in 0..extra {
        // Golden-angle spiral over the annulus 4 m ≤ r ≤ 10 m (even area).
        let share = (k as f64 + 0.5) / extra as f64;
        let r = (16.0 + share * (100.0 - 16.0)).sqrt();
        let angle = k as f64 * 2.399_963_229_728_653;
        let (x, z) = (r * angle.cos(), r * angle.sin());
        let in_dish = (x - dish_x).hypot(z - dish_z) < dish_radius + 0.5;
        let floor = if in_dish {
            2.3
        } else {
            world.ground.surface_y_at(x, z).unwrap_or(0.0)
        };
        let pose = Isometry3::from_parts(
            Translation3::new(x, floor + 1.5 + (k % 3) as f64 * 0.9, z),
            UnitQuaternion::from_euler_angles(0.7 * k as f64, 0.3 * k as f64, 1.1 * k as f64),
        );
        // Sizes cycle through 0.2, 0.25, ... 0.45 m, out of step with the kinds.
        let size = 0.2 + 0.05 * (k % 6) as f64;
        let name = format!("extra {}", k + 1);
        let mut body = match k % 5 {
            0 => Body::sphere(&name, size, pose),
            1 => Body::capsule(&name, 0.6 * size, size, pose),
            2 => Body::cuboid(&name, Vector3::new(size, 0.7 * size, 0.85 * size), pose),
            3 => Body::cylinder(&name, 0.8 * size, size, pose),
            _ => Body::cone(&name, size, 2.0 * size, pose),
        };
        // Higher where a body already hangs there.
        let near = |body: &Body, other: &Body| {
            let distance = world
                .dispatcher
                .distance(&*other.shape, &other.pose, &*body.shape, &body.pose);
            distance.is_ok_and(|d| d < 0.1)
        };
        while world.bodies.iter().any(|other| near(&body, other)) {
            body.pose.translation.vector.y += 0.5;
        }
        world.add_body(body);
    }
    world
}

/// Poses from lines of `x y z i j k w` (see [`World::poses_text`]); blank
/// lines and lines starting with `#` are skipped. (Read by the tests and
/// the benchmarks, which include this file; the example only writes.)
#[allow(dead_code)]
pub fn parse_poses(text: &str) -> Result<Vec<Isometry3<f64>>, String> {
    let lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    lines
        .map(|line| {
            let numbers: Vec<f64> = line
                .split_whitespace()
                .map(|n| n.parse::<f64>().map_err(|e| format!("{line}: {e}")))
                .collect::<Result<_, _>>()?;
            let [x, y, z, i, j, k, w] = numbers[..] else {
                return Err(format!("{line}: seven numbers expected"));
            };
            let rotation = UnitQuaternion::new_normalize(geom::nalgebra::Quaternion::new(w, i, j, k));
            Ok(Isometry3::from_parts(Translation3::new(x, y, z), rotation))
        })
        .collect()
}

/// Where the dish stands: the centre's x and z and the rim's radius.
pub const DISH: (f64, f64, f64) = (-6.0, 6.0, 3.0);

/// A round block with a dish hollowed in its top, as a closed triangle
/// mesh: the rim `radius` from (`cx`, `cz`) at y = 2.3, the hollow a
/// paraboloid 0.7 deep, the walls straight down to y = -0.5 (below the
/// ground there). Rings of the top are turned half a sector against each
/// other, so its triangles follow no grid.
fn dish_block(cx: f64, cz: f64, radius: f64) -> TriMesh<f64> {
    const RINGS: usize = 6;
    const SECTORS: usize = 24;
    let (rim_y, depth, bottom_y) = (2.3, 0.7, -0.5);
    let at = |r: f64, turn: f64, y: f64| {
        let angle = std::f64::consts::TAU * turn / SECTORS as f64;
        Point3::new(cx + r * angle.cos(), y, cz + r * angle.sin())
    };
    let offset = |ring: usize| 0.5 * (ring % 2) as f64;
    let mut vertices = vec![Point3::new(cx, rim_y - depth, cz)];
    for ring in 1..=RINGS {
        let r = radius * ring as f64 / RINGS as f64;
        let y = rim_y - depth * (1.0 - (r / radius).powi(2));
        vertices.extend((0..SECTORS).map(|j| at(r, j as f64 + offset(ring), y)));
    }
    vertices.extend((0..SECTORS).map(|j| at(radius, j as f64 + offset(RINGS), bottom_y)));
    vertices.push(Point3::new(cx, bottom_y, cz));
    // Vertex j (cyclic) of ring k; ring RINGS + 1 is the foot of the wall.
    let v = |ring: usize, j: usize| (1 + (ring - 1) * SECTORS + j % SECTORS) as u32;
    let bottom = (vertices.len() - 1) as u32;
    let mut triangles = Vec::new();
    for j in 0..SECTORS {
        triangles.push([0, v(1, j), v(1, j + 1)]);
        for ring in 1..RINGS {
            // Between rings turned by half a sector one way or the other.
            if offset(ring) == 0.0 {
                triangles.push([v(ring, j), v(ring + 1, j), v(ring, j + 1)]);
                triangles.push([v(ring + 1, j), v(ring + 1, j + 1), v(ring, j + 1)]);
            } else {
                triangles.push([v(ring, j), v(ring + 1, j + 1), v(ring, j + 1)]);
                triangles.push([v(ring + 1, j), v(ring + 1, j + 1), v(ring, j)]);
            }
        }
        triangles.push([v(RINGS, j), v(RINGS + 1, j), v(RINGS, j + 1)]);
        triangles.push([v(RINGS + 1, j), v(RINGS + 1, j + 1), v(RINGS, j + 1)]);
        triangles.push([bottom, v(RINGS + 1, j + 1), v(RINGS + 1, j)]);
    }
    TriMesh::new(vertices, triangles).expect("a valid closed mesh")
}
