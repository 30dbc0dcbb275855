//! Board geometry shared by the games: coordinates, neighbours, rotation, the ASCII
//! canvas, and the pieces the board pictures are drawn with (SVG, and PNG from it).

pub mod canvas;
pub mod hex;
pub mod raster;
pub mod svg;
pub mod triangle;
