//! Serialize and Deserialize for heightfields (feature `serde`).
//!
//! A [`HeightField`] is written as its [`HeightFieldDesc`] (origin, cell
//! sizes, rows, columns, heights row-major, flipped and hole cells, the
//! active-edge angle) and read back through
//! [`HeightField::try_from_desc`], which validates the description and
//! rebuilds the derived data (block ranges, active edges): a document
//! with a wrong number of heights or a NaN is refused with that
//! constructor's error.

use geom_core::Real;
use nalgebra::Point3;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{HeightField, HeightFieldDesc};

/// [`HeightFieldDesc`]'s fields, the heights borrowed.
#[derive(Serialize)]
struct DescWritten<'a, N: Real> {
    origin: Point3<N>,
    cell_size: [N; 2],
    rows: usize,
    cols: usize,
    heights: &'a [N],
    flipped_cells: Vec<usize>,
    hole_cells: Vec<usize>,
    active_edge_angle: N,
}

impl<N: Real + Serialize> Serialize for HeightField<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        DescWritten {
            origin: self.origin,
            cell_size: self.cell_size,
            rows: self.rows,
            cols: self.cols,
            heights: &self.heights,
            flipped_cells: self.flipped_cells(),
            hole_cells: self.hole_cells(),
            active_edge_angle: self.active_edge_angle,
        }
        .serialize(serializer)
    }
}

impl<'de, N: Real + Deserialize<'de>> Deserialize<'de> for HeightField<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        HeightField::try_from_desc(HeightFieldDesc::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}
