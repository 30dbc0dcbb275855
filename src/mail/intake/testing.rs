//! Readers and a move the intake's tests share.

use super::extract_move_text;
use super::reply::{extract, Extracted};
use super::sign_off::Names;

pub(super) fn strip(body: &str) -> String {
    extract_move_text(body)
}

pub(super) fn read(body: &str) -> Extracted {
    extract(body, false, false, &Names::default())
}

/// Extracts with Ann Archer <ann.archer@example.org> as the sender.
pub(super) fn read_from_ann(body: &str) -> Extracted {
    let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
    extract(body, false, false, &names)
}

pub(super) const MOVE: &str = "place E,NW at C5";

/// What Ann's move is in these tests, on two lines.
pub(super) const TURN: &str = "place E,NW at C5\nbuy D4 with I";
