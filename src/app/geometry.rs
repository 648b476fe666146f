//! Where every place of the rules sits on the drawn board: an 11 × 11 grid
//! with the cross of 40 track squares round the edge of its arms, each
//! colour's home row along the middle of its arm and its base of four in a
//! corner. Red's quarter is written out once; the other colours' quarters
//! are it turned clockwise about the centre, a quarter turn per colour, so
//! the board is symmetric by construction.
//!
//! A [`Spot`] is where a piece stands as the board draws it. The rules name
//! base and home places from the mover's view; under the Matfyz rules the
//! pieces are shared, so a spot also says *whose* base or home it is.

use crate::rules::board::{HOME_LEN, TRACK_LEN};
use crate::rules::{Colour, Place};

/// Cells per side of the board grid.
pub const GRID: u8 = 11;

/// A cell of the board grid: column from the left, row from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub col: u8,
    pub row: u8,
}

const fn cell(col: u8, row: u8) -> Cell {
    Cell { col, row }
}

/// Red's ten track squares `T0`..`T9`: out along the top of the left arm,
/// up the left side of the top arm and one step across its end.
const RED_TRACK: [Cell; 10] = [
    cell(0, 4),
    cell(1, 4),
    cell(2, 4),
    cell(3, 4),
    cell(4, 4),
    cell(4, 3),
    cell(4, 2),
    cell(4, 1),
    cell(4, 0),
    cell(5, 0),
];
/// Red's home row `H1`..`H4`, from the arm's end towards the centre.
const RED_HOME: [Cell; HOME_LEN as usize] = [cell(1, 5), cell(2, 5), cell(3, 5), cell(4, 5)];
/// Red's base: the top-left corner.
const RED_BASE: [Cell; 4] = [cell(0, 0), cell(1, 0), cell(0, 1), cell(1, 1)];

/// `c` turned clockwise (on screen) about the centre `times` quarter turns.
const fn turn(c: Cell, times: usize) -> Cell {
    let mut c = c;
    let mut i = 0;
    while i < times % 4 {
        c = cell(GRID - 1 - c.row, c.col);
        i += 1;
    }
    c
}

/// Track square `square` (0..40).
///
/// # Panics
/// If `square` is not a track square; places come from the rules engine,
/// which never makes one.
pub fn track(square: u8) -> Cell {
    assert!(square < TRACK_LEN, "no track square {square}");
    let quarter = usize::from(square / 10);
    turn(RED_TRACK[usize::from(square % 10)], quarter)
}

/// `colour`'s home square `h` (1..=4).
///
/// # Panics
/// If `h` is not 1..=4.
pub fn home(colour: Colour, h: u8) -> Cell {
    assert!((1..=HOME_LEN).contains(&h), "no home square {h}");
    turn(RED_HOME[usize::from(h - 1)], colour.index())
}

/// `colour`'s base slot `slot` (0..4), one for each piece.
///
/// # Panics
/// If `slot` is not 0..4.
pub fn base(colour: Colour, slot: usize) -> Cell {
    turn(RED_BASE[slot], colour.index())
}

/// Where a piece stands on the drawn board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Spot {
    /// In the base of the player of this colour.
    Base(Colour),
    /// On track square 0..40.
    Track(u8),
    /// On home square 1..=4 of the player of this colour.
    Home(Colour, u8),
}

impl Spot {
    /// The spot of the rules' `place` as `seat` sees it (its base and
    /// home are its own).
    pub fn of(seat: Colour, place: Place) -> Spot {
        match place {
            Place::Base => Spot::Base(seat),
            Place::Track(n) => Spot::Track(n),
            Place::Home(h) => Spot::Home(seat, h),
        }
    }

    /// The rules' place of this spot as `seat` sees it: `None` for
    /// another player's base or home.
    pub fn place_for(self, seat: Colour) -> Option<Place> {
        match self {
            Spot::Base(s) => (s == seat).then_some(Place::Base),
            Spot::Track(n) => Some(Place::Track(n)),
            Spot::Home(s, h) => (s == seat).then_some(Place::Home(h)),
        }
    }

    /// The cell of this spot; `base_slot` (0..4) is which of a base's four
    /// cells a piece in a base takes.
    ///
    /// # Panics
    /// As [`track`], [`home`] and [`base`] for places that do not exist.
    pub fn cell(self, base_slot: usize) -> Cell {
        match self {
            Spot::Base(seat) => base(seat, base_slot),
            Spot::Track(n) => track(n),
            Spot::Home(seat, h) => home(seat, h),
        }
    }
}

/// Which of `cells` (column and row) a tap at `at` (in cells from the
/// board's corner) is for: the one whose centre is nearest, if no further
/// than `reach` cells along either axis; the first of equally near ones.
/// A touch reaches beyond a small board's cells, and a tap near the edge
/// of one must not go to its neighbour.
pub fn nearest(cells: &[(i32, i32)], at: (f32, f32), reach: f32) -> Option<usize> {
    let offset = |&(col, row): &(i32, i32)| (at.0 - col as f32 - 0.5, at.1 - row as f32 - 0.5);
    cells
        .iter()
        .map(offset)
        .enumerate()
        .filter(|(_, (dx, dy))| dx.abs() <= reach && dy.abs() <= reach)
        .min_by(|(_, a), (_, b)| (a.0 * a.0 + a.1 * a.1).total_cmp(&(b.0 * b.0 + b.1 * b.1)))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_tap_goes_to_the_nearest_cell_within_reach() {
        let cells = [(4, 4), (5, 4), (9, 9)];
        // Near the edge between two neighbours: the nearer one, though a
        // reach of a cell and a half covers both.
        assert_eq!(nearest(&cells, (4.95, 4.5), 1.5), Some(0));
        assert_eq!(nearest(&cells, (5.05, 4.5), 1.5), Some(1));
        // Beyond a cell, within reach.
        assert_eq!(nearest(&cells, (8.2, 9.5), 1.5), Some(2));
        assert_eq!(nearest(&cells, (7.9, 9.5), 1.5), None);
        assert_eq!(nearest(&[], (4.5, 4.5), 1.5), None);
        // Equally near: the first.
        assert_eq!(nearest(&cells, (5.0, 4.5), 1.5), Some(0));
    }

    fn all_cells() -> Vec<Cell> {
        let mut cells: Vec<Cell> = (0..TRACK_LEN).map(track).collect();
        for colour in Colour::ALL {
            cells.extend((1..=HOME_LEN).map(|h| home(colour, h)));
            cells.extend((0..4).map(|s| base(colour, s)));
        }
        cells
    }

    #[test]
    fn every_place_has_its_own_cell_on_the_grid() {
        let cells = all_cells();
        assert_eq!(cells.len(), 40 + 16 + 16);
        assert!(cells.iter().all(|c| c.col < GRID && c.row < GRID));
        assert_eq!(cells.iter().collect::<BTreeSet<_>>().len(), cells.len());
    }

    #[test]
    fn the_track_is_a_closed_path_of_neighbouring_cells() {
        for square in 0..TRACK_LEN {
            let (a, b) = (track(square), track((square + 1) % TRACK_LEN));
            let distance = a.col.abs_diff(b.col) + a.row.abs_diff(b.row);
            assert_eq!(distance, 1, "T{square} to the next square");
        }
    }

    #[test]
    fn the_track_runs_clockwise_round_the_centre() {
        // The signed area of the closed path (shoelace formula) is positive
        // for clockwise order on screen, where rows grow downwards.
        let area: i32 = (0..TRACK_LEN)
            .map(|s| {
                let (a, b) = (track(s), track((s + 1) % TRACK_LEN));
                i32::from(a.col) * i32::from(b.row) - i32::from(b.col) * i32::from(a.row)
            })
            .sum();
        assert!(area > 0);
    }

    #[test]
    fn each_home_row_leads_from_the_square_behind_the_start_to_the_centre() {
        for colour in Colour::ALL {
            let entrance = track(colour.home_entrance());
            let first = home(colour, 1);
            assert_eq!(
                entrance.col.abs_diff(first.col) + entrance.row.abs_diff(first.row),
                1
            );
            let deepest = home(colour, HOME_LEN);
            let centre = GRID / 2;
            assert_eq!(
                deepest.col.abs_diff(centre) + deepest.row.abs_diff(centre),
                1
            );
        }
    }

    #[test]
    fn a_spot_is_the_place_as_its_own_seat_sees_it_and_nobody_elses() {
        let home = Spot::of(Colour::Blue, Place::Home(2));
        assert_eq!(home, Spot::Home(Colour::Blue, 2));
        assert_eq!(home.place_for(Colour::Blue), Some(Place::Home(2)));
        assert_eq!(home.place_for(Colour::Red), None);
        assert_eq!(Spot::Base(Colour::Red).place_for(Colour::Green), None);
        let square = Spot::of(Colour::Green, Place::Track(7));
        assert_eq!(square.place_for(Colour::Yellow), Some(Place::Track(7)));
        assert_eq!(home.cell(0), super::home(Colour::Blue, 2));
        assert_eq!(Spot::Base(Colour::Green).cell(3), base(Colour::Green, 3));
    }
}
