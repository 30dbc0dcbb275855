//! Board geometry shared by the games: coordinates, neighbours, rotation, ASCII canvas.

pub mod canvas;
pub mod hex;
pub mod triangle;
