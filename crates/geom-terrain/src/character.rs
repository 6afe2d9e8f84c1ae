//! Collide-and-slide: a character that moves through the world without
//! tunnelling, catching on flat ground, or bobbing.
//!
//! ```
//! use geom_core::dispatch::DispatchTable;
//! use geom_prims::sweep::MovingShape;
//! use geom_terrain::{CharacterConfig, CharacterController, HeightField, Obstacle};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A ball character dropped 2 above flat ground lands a skin width
//! // (1 cm) above it, grounded, and stays there walking.
//! let ground = HeightField::new(Point3::new(-8.0, 0.0, -8.0), [1.0, 1.0], 17, 17, vec![0.0f64; 289]);
//! let world = [Obstacle::HeightField { field: &ground, pose: Isometry3::identity() }];
//! let table = DispatchTable::new(); // heightfields are swept directly
//! let ball = MovingShape::Sphere { center: Point3::new(0.0, 2.5, 0.0), radius: 0.5 };
//! let mut character = CharacterController::new(ball, CharacterConfig::new(0.01));
//! character.fall(&Vector3::new(0.0, -3.0, 0.0), &world, &table).unwrap();
//! assert!(character.is_grounded());
//! assert!((character.position().y - 0.51).abs() < 1e-9);
//! for _ in 0..20 {
//!     character.step(&Vector3::new(0.1, 0.0, 0.05), &Vector3::new(0.0, -0.1, 0.0), &world, &table).unwrap();
//! }
//! assert!(character.is_grounded() && (character.position().y - 0.51).abs() < 1e-9);
//! assert!((character.position().x - 2.0).abs() < 1e-9);
//! ```

use geom_core::dispatch::DispatchTable;
use geom_core::{GeomError, Real, lit};
use geom_prims::sweep::{MovingShape, SweepHit};
use nalgebra::{Point3, Vector3};

use crate::sweep::{Obstacle, sweep_obstacles};

/// The settings of a [`CharacterController`].
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterConfig<N: Real> {
    /// The unit "up" direction (gravity pulls the other way).
    pub up: Vector3<N>,
    /// The gap, in world units, kept between the shape and whatever it
    /// touches (along the contact normal). It must be much smaller than the
    /// shape (a thousandth of its radius is typical) and larger than the
    /// rounding at the scene's coordinates (in `f32` at 10⁴ from the
    /// origin that is about 10⁻³; use `1e-2` or more there).
    pub skin_width: N,
    /// How many sweeps one [`CharacterController::slide`] may make.
    pub max_iterations: usize,
    /// The steepest walkable ground, as the cosine of its angle from the
    /// horizontal (`cos 45°` by default): steeper surfaces are walls.
    pub min_walkable_cos: N,
}

impl<N: Real> CharacterConfig<N> {
    /// Y up, skin width `skin_width`, 5 iterations, ground walkable up to 45°.
    /// The settings are checked when the controller moves (see
    /// [`CharacterConfig::validate`]); [`CharacterConfig::try_new`] checks
    /// them here.
    pub fn new(skin_width: N) -> Self {
        CharacterConfig {
            up: Vector3::y(),
            skin_width,
            max_iterations: 5,
            min_walkable_cos: lit::<N>(0.5).sqrt(),
        }
    }

    /// [`CharacterConfig::new`], refusing a skin width that is not finite
    /// and positive.
    ///
    /// ```
    /// use geom_terrain::CharacterConfig;
    /// let error = CharacterConfig::<f64>::try_new(f64::NAN).unwrap_err();
    /// assert_eq!(error.to_string(), "character config: skin_width = NaN is invalid (must be finite and > 0)");
    /// assert!(CharacterConfig::try_new(0.01).is_ok());
    /// ```
    pub fn try_new(skin_width: N) -> Result<Self, GeomError> {
        let config = Self::new(skin_width);
        config.validate()?;
        Ok(config)
    }

    /// Whether the settings can move a character: a finite, positive skin
    /// width; a finite unit `up` (to 10⁻⁴); at least one iteration; a
    /// walkable cosine in `[−1, 1]`. The error names the first that is
    /// not. [`CharacterController::slide`] and
    /// [`CharacterController::fall`] refuse to move with such settings.
    pub fn validate(&self) -> Result<(), GeomError> {
        const SHAPE: &str = "character config";
        if !(self.skin_width.is_finite() && self.skin_width > N::zero()) {
            return Err(GeomError::invalid(
                SHAPE,
                "skin_width",
                self.skin_width,
                "must be finite and > 0",
            ));
        }
        let up_length = self.up.norm();
        if !(self.up.iter().all(|c| c.is_finite()) && (up_length - N::one()).abs() <= lit(1e-4)) {
            return Err(GeomError::invalid(
                SHAPE,
                "up",
                self.up,
                "must be finite and unit",
            ));
        }
        if self.max_iterations == 0 {
            return Err(GeomError::invalid(
                SHAPE,
                "max_iterations",
                self.max_iterations,
                "must be >= 1",
            ));
        }
        if !(self.min_walkable_cos >= -N::one() && self.min_walkable_cos <= N::one()) {
            return Err(GeomError::invalid(
                SHAPE,
                "min_walkable_cos",
                self.min_walkable_cos,
                "must be in [-1, 1]",
            ));
        }
        Ok(())
    }

    /// The same settings with the steepest walkable slope set to
    /// `degrees` from the horizontal.
    pub fn with_max_slope_degrees(self, degrees: N) -> Self {
        CharacterConfig {
            min_walkable_cos: (degrees * N::pi() / lit(180.0)).cos(),
            ..self
        }
    }
}

/// A character's body moved by collide-and-slide.
///
/// After Fauerby, "Improved Collision detection and Response" (2003), with
/// the corrections of Linahan, "Improving the numerical robustness of
/// sphere swept collision detection" (2012):
///
/// - each sweep is exact ([`sweep_obstacles`]): no step tunnels, however
///   fast;
/// - after a hit the shape is padded along the contact normal (not backed
///   off along the velocity, the cause of Fauerby's bobbing): its gap to
///   every plane it has touched in this move is restored to exactly the
///   skin width, both at once in a crease (a 2×2 solve);
/// - the rest of the motion slides along the contact plane; a second plane
///   leaves the crease line between the two (Linahan's fix for the
///   jitter between two planes); a third stops the move;
/// - gravity is a separate step ([`CharacterController::fall`]) that probes
///   one skin width further down, lands on walkable ground with the gap set
///   along "up" (so standing on a slope does not creep), sets the
///   [`grounded`](CharacterController::is_grounded) flag, and slides down
///   surfaces steeper than the maximum slope;
/// - while grounded, a surface too steep to walk is slid along as a
///   vertical wall, so it cannot be climbed.
///
/// Nothing is allocated per move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterController<N: Real> {
    shape: MovingShape<N>,
    config: CharacterConfig<N>,
    grounded: bool,
    ground_normal: Option<Vector3<N>>,
}

/// A plane touched during one move: the contact point and normal.
#[derive(Clone, Copy, Debug)]
struct TouchedPlane<N: Real> {
    point: Point3<N>,
    normal: Vector3<N>,
}

impl<N: Real> CharacterController<N> {
    /// A character with body `shape` (at its starting place) and `config`.
    pub fn new(shape: MovingShape<N>, config: CharacterConfig<N>) -> Self {
        CharacterController {
            shape,
            config,
            grounded: false,
            ground_normal: None,
        }
    }

    /// The body at its current place.
    pub fn shape(&self) -> &MovingShape<N> {
        &self.shape
    }

    /// The settings.
    pub fn config(&self) -> &CharacterConfig<N> {
        &self.config
    }

    /// The centre of the body.
    pub fn position(&self) -> Point3<N> {
        self.shape.center()
    }

    /// Whether the last [`CharacterController::fall`] landed on walkable ground.
    pub fn is_grounded(&self) -> bool {
        self.grounded
    }

    /// The normal of the ground stood on, when grounded.
    pub fn ground_normal(&self) -> Option<Vector3<N>> {
        self.ground_normal
    }

    /// Moves the body by `offset` without collision (a teleport).
    pub fn translate(&mut self, offset: &Vector3<N>) {
        self.shape = self.shape.translated(offset);
    }

    fn is_walkable(&self, normal: &Vector3<N>) -> bool {
        normal.dot(&self.config.up) >= self.config.min_walkable_cos
    }

    /// The gap between the body and the plane of `plane` (negative when
    /// the body crosses it): the distance from the centre to the plane
    /// minus the body's extent along the normal.
    fn gap(&self, plane: &TouchedPlane<N>) -> N {
        (self.shape.center() - plane.point).dot(&plane.normal) - self.shape.extent(&plane.normal)
    }

    /// Pushes the body out along the normals of the touched planes nearer
    /// than the skin width, so that each of them ends exactly the skin
    /// width away: one plane is a push along its normal; when that push
    /// brings the other plane nearer than the skin (a crease sharper than
    /// 90°), both gaps are set at once by the 2×2 Gram system of the two
    /// normals.
    fn pad(&mut self, planes: &[TouchedPlane<N>]) {
        let skin = self.config.skin_width;
        let need = |this: &Self, plane: &TouchedPlane<N>| skin - this.gap(plane);
        let Some(first) = planes.iter().position(|plane| need(self, plane) > N::zero()) else {
            return;
        };
        let push = planes[first].normal * need(self, &planes[first]);
        let mut padded = *self;
        padded.translate(&push);
        let other = planes
            .iter()
            .enumerate()
            .find(|(index, plane)| *index != first && need(&padded, plane) > N::zero());
        let push = match other {
            None => push,
            Some((_, second)) => {
                let (n1, need1) = (planes[first].normal, need(self, &planes[first]));
                let (n2, need2) = (second.normal, need(self, second));
                let cosine = n1.dot(&n2);
                let determinant = N::one() - cosine * cosine;
                if determinant > lit(1e-6) {
                    let along1 = (need1 - cosine * need2) / determinant;
                    let along2 = (need2 - cosine * need1) / determinant;
                    n1 * along1 + n2 * along2
                } else {
                    push
                }
            }
        };
        if push.iter().all(|c| c.is_finite()) {
            self.translate(&push);
        }
    }

    /// The normal the motion slides along: a surface too steep to walk on
    /// is a vertical wall while grounded (it cannot be climbed).
    fn slide_normal(&self, normal: &Vector3<N>) -> Vector3<N> {
        if !self.grounded || self.is_walkable(normal) {
            return *normal;
        }
        let up = self.config.up;
        let horizontal = normal - up * normal.dot(&up);
        let length = horizontal.norm();
        if length > lit(1e-6) {
            horizontal / length
        } else {
            *normal
        }
    }

    /// Collide-and-slide by `motion`: returns how many contacts the move
    /// made. NaN or infinite motions do nothing. Errors: settings that
    /// cannot move a character ([`CharacterConfig::validate`]; the
    /// character stays where it is), and the dispatch table's, for
    /// obstacles swept through it.
    pub fn slide(
        &mut self,
        motion: &Vector3<N>,
        world: &[Obstacle<'_, N>],
        table: &DispatchTable<N>,
    ) -> Result<usize, GeomError> {
        self.config.validate()?;
        if !motion.iter().all(|c| c.is_finite()) {
            return Ok(0);
        }
        let negligible = motion.norm() * N::default_epsilon() * lit(16.0);
        let mut remaining = *motion;
        let mut planes = [TouchedPlane {
            point: Point3::origin(),
            normal: Vector3::zeros(),
        }; 2];
        let mut plane_count = 0;
        let mut collisions = 0;
        for _ in 0..self.config.max_iterations {
            if remaining.norm() <= negligible {
                break;
            }
            let Some((_, hit)) = sweep_obstacles(&self.shape, &remaining, world, table)? else {
                self.translate(&remaining);
                break;
            };
            collisions += 1;
            self.translate(&(remaining * hit.toi));
            remaining *= N::one() - hit.toi;
            let touched = TouchedPlane {
                point: hit.point,
                normal: hit.normal,
            };
            // The same plane again (a neighbouring triangle of it) replaces it.
            let same = planes[..plane_count]
                .iter()
                .position(|plane| plane.normal.dot(&hit.normal) > N::one() - lit(1e-9));
            match same {
                Some(index) => planes[index] = touched,
                None if plane_count < 2 => {
                    planes[plane_count] = touched;
                    plane_count += 1;
                }
                None => {
                    // A third plane: the motion is boxed in (Linahan).
                    planes[1] = touched;
                    self.pad(&planes);
                    break;
                }
            }
            self.pad(&planes[..plane_count]);
            remaining = self.constrain(&remaining, &hit, &planes[..plane_count]);
            if remaining == Vector3::zeros() {
                break;
            }
        }
        Ok(collisions)
    }

    /// The remaining motion after a hit: slid along the newest plane, or
    /// along the crease of two when sliding along one would enter the other.
    fn constrain(&self, remaining: &Vector3<N>, hit: &SweepHit<N>, planes: &[TouchedPlane<N>]) -> Vector3<N> {
        let zero = N::zero();
        let along_plane = |motion: &Vector3<N>, normal: &Vector3<N>| {
            let into = motion.dot(normal);
            if into < zero {
                motion - normal * into
            } else {
                *motion
            }
        };
        let newest = self.slide_normal(&hit.normal);
        let slid = along_plane(remaining, &newest);
        let others_allow = planes
            .iter()
            .filter(|plane| plane.normal != hit.normal)
            .all(|plane| slid.dot(&self.slide_normal(&plane.normal)) >= zero);
        if others_allow || planes.len() < 2 {
            return slid;
        }
        let (first, second) = (
            self.slide_normal(&planes[0].normal),
            self.slide_normal(&planes[1].normal),
        );
        let crease = first.cross(&second);
        let length_squared = crease.norm_squared();
        if length_squared > lit(1e-12) {
            crease * (crease.dot(remaining) / length_squared)
        } else {
            Vector3::zeros()
        }
    }

    /// The gravity step: moves by `fall` (usually `−up · g·dt²`-like) and
    /// lands on what it meets. The sweep looks two skin widths further, so a
    /// character standing a skin width above the ground stays on it every
    /// step (no bobbing). Landing on walkable ground sets the gap to the
    /// skin width along "up" and the grounded flag; a steeper surface is
    /// slid down ([`CharacterController::slide`]). Returns the contacts made;
    /// errors as for [`CharacterController::slide`].
    pub fn fall(
        &mut self,
        fall: &Vector3<N>,
        world: &[Obstacle<'_, N>],
        table: &DispatchTable<N>,
    ) -> Result<usize, GeomError> {
        self.config.validate()?;
        if !fall.iter().all(|c| c.is_finite()) {
            return Ok(0);
        }
        let skin = self.config.skin_width;
        let up = self.config.up;
        let fall_length = fall.norm();
        let direction = if fall_length > N::zero() {
            fall / fall_length
        } else {
            -up
        };
        let probe = direction * (fall_length + skin * lit(2.0));
        let Some((_, hit)) = sweep_obstacles(&self.shape, &probe, world, table)? else {
            self.translate(fall);
            self.grounded = false;
            self.ground_normal = None;
            return Ok(0);
        };
        if self.is_walkable(&hit.normal) {
            self.translate(&(probe * hit.toi));
            let plane = TouchedPlane {
                point: hit.point,
                normal: hit.normal,
            };
            let upward = hit.normal.dot(&up);
            if upward > N::zero() {
                let lift = (skin - self.gap(&plane)) / upward;
                self.translate(&(up * lift));
            } else {
                self.pad(&[plane]);
            }
            self.grounded = true;
            self.ground_normal = Some(hit.normal);
            Ok(1)
        } else {
            self.grounded = false;
            self.ground_normal = None;
            self.slide(fall, world, table)
        }
    }

    /// One frame: [`slide`](CharacterController::slide) by `walk`, then
    /// [`fall`](CharacterController::fall) by `gravity`. Returns the
    /// contacts made.
    pub fn step(
        &mut self,
        walk: &Vector3<N>,
        gravity: &Vector3<N>,
        world: &[Obstacle<'_, N>],
        table: &DispatchTable<N>,
    ) -> Result<usize, GeomError> {
        Ok(self.slide(walk, world, table)? + self.fall(gravity, world, table)?)
    }
}

#[cfg(test)]
mod tests;
