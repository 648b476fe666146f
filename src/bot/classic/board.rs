//! A classic position as the heuristics read it: how far every piece has
//! come, and how likely each track square is to be hit.

use crate::rules::board::TRACK_LEN;
use crate::rules::classic::Position;
use crate::rules::{Colour, Place, Seats};

/// Chances are counted in 36ths (two rolls of the die), so they stay
/// integers.
pub const CERTAIN: i32 = 36;
/// Progress of a piece on its colour's last track square.
pub const LAST_TRACK: u8 = TRACK_LEN;
const SQUARES: usize = TRACK_LEN as usize;

/// Progress of a piece of `colour` on `place`, as the classic engine counts
/// it: 0 in base, 1..=40 along the track from the colour's start square,
/// 41..=44 in the home row.
pub fn progress(colour: Colour, place: Place) -> u8 {
    match place {
        Place::Base => 0,
        Place::Track(square) => (square + TRACK_LEN - colour.start()) % TRACK_LEN + 1,
        Place::Home(h) => LAST_TRACK + h,
    }
}

/// Track square of `colour`'s progress `spot` (1..=40).
pub fn square(colour: Colour, spot: u8) -> u8 {
    (colour.start() + spot - 1) % TRACK_LEN
}

/// Every piece's progress and every colour's reach, worked out once per
/// position.
pub struct Board {
    seats: Seats,
    progress: [[u8; 4]; 4],
    /// `reach[a][n]`: the chance, in 36ths, that colour `a` hits a piece on
    /// track square `n` in its next turn (more than [`CERTAIN`] when several
    /// of its pieces could).
    reach: [[u8; SQUARES]; 4],
}

impl Board {
    pub fn new(position: &Position) -> Board {
        let seats = position.seats();
        let mut board = Board {
            seats,
            progress: [[0; 4]; 4],
            reach: [[0; SQUARES]; 4],
        };
        for colour in seats.iter() {
            board.progress[colour.index()] = position.places(colour).map(|p| progress(colour, p));
        }
        for colour in seats.iter() {
            board.reach[colour.index()] = board.reach_of(colour);
        }
        board
    }

    /// Where `attacker` may hit in its next turn: each of its pieces hits
    /// each of the six squares ahead with one roll (6/36) and each of the
    /// six after those with a six and another roll (1/36), unless it turns
    /// into its home row first. With pieces in base it hits its own start
    /// square when one comes out (6/36, or 15/36 with three tries for a six
    /// when nothing else of it can move), and the six squares beyond with a
    /// six and another roll.
    fn reach_of(&self, attacker: Colour) -> [u8; SQUARES] {
        let mut reach = [0u8; SQUARES];
        let mut add = |from: u8, distance: u8, chance: u8| {
            let n = usize::from((from + distance) % TRACK_LEN);
            reach[n] = reach[n].saturating_add(chance);
        };
        for spot in self.on_track(attacker) {
            let from = square(attacker, spot);
            for distance in 1..=(LAST_TRACK - spot).min(12) {
                add(from, distance, if distance <= 6 { 6 } else { 1 });
            }
        }
        if self.in_base(attacker) {
            let start = attacker.start();
            let tries = if self.on_track(attacker).next().is_none() {
                15
            } else {
                6
            };
            add(start, 0, tries);
            for distance in 1..=6 {
                add(start, distance, 1);
            }
        }
        reach
    }

    /// The progress of `colour`'s four pieces, base first.
    pub fn pieces(&self, colour: Colour) -> [u8; 4] {
        self.progress[colour.index()]
    }

    pub fn in_base(&self, colour: Colour) -> bool {
        self.pieces(colour).contains(&0)
    }

    /// The progress of `colour`'s pieces on the track.
    pub fn on_track(&self, colour: Colour) -> impl Iterator<Item = u8> {
        self.pieces(colour)
            .into_iter()
            .filter(|&p| (1..=LAST_TRACK).contains(&p))
    }

    /// The chance, in 36ths, that a piece of `victim` on track square
    /// `target` is captured before `victim` moves again (every opponent
    /// moves once in between).
    pub fn hit_chance(&self, victim: Colour, target: u8) -> i32 {
        let chance: i32 = self
            .seats
            .iter()
            .filter(|&c| c != victim)
            .map(|c| i32::from(self.reach[c.index()][usize::from(target)]))
            .sum();
        chance.min(CERTAIN)
    }

    /// The chance, in 36ths, that `attacker` hits a piece on track square
    /// `target` in its next turn (more than [`CERTAIN`] when several of its
    /// pieces could).
    pub fn reach(&self, attacker: Colour, target: u8) -> i32 {
        i32::from(self.reach[attacker.index()][usize::from(target)])
    }

    /// The medium player's plain idea of danger: an opponent piece stands
    /// 1..=6 squares behind `target`, or an opponent with pieces in base
    /// starts on it.
    pub fn threatened(&self, victim: Colour, target: u8) -> bool {
        self.hit_chance(victim, target) >= 6
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Seats;

    fn position(pieces: &[(Colour, [&str; 4])], turn: Colour) -> Position {
        let colours: Vec<Colour> = pieces.iter().map(|(c, _)| *c).collect();
        let seats = Seats::from_colours(&colours).unwrap();
        let pieces: Vec<(Colour, Vec<Place>)> = pieces
            .iter()
            .map(|(c, places)| (*c, places.iter().map(|p| p.parse().unwrap()).collect()))
            .collect();
        Position::new(seats, turn, &pieces).unwrap()
    }

    #[test]
    fn a_piece_one_to_six_squares_ahead_of_an_opponent_is_hit_one_time_in_six() {
        let p = position(
            &[
                (Colour::Red, ["B", "B", "B", "T5"]),
                (Colour::Green, ["T1", "T30", "H1", "H2"]),
            ],
            Colour::Red,
        );
        let board = Board::new(&p);
        // Green's T1 piece is 4 behind T5; green's base has nothing left.
        assert_eq!(board.hit_chance(Colour::Red, 5), 6);
        // Eight squares ahead of green's T1: a six and a two.
        assert_eq!(board.hit_chance(Colour::Red, 9), 1);
        assert!(board.threatened(Colour::Red, 5));
        assert!(!board.threatened(Colour::Red, 9));
    }

    #[test]
    fn an_opponent_with_pieces_in_base_threatens_its_start_square() {
        let p = position(
            &[
                (Colour::Red, ["B", "B", "B", "T20"]),
                (Colour::Green, ["B", "B", "B", "B"]),
            ],
            Colour::Red,
        );
        let board = Board::new(&p);
        // Green waits for a six with three tries.
        assert_eq!(board.hit_chance(Colour::Red, 20), 15);
        assert_eq!(board.hit_chance(Colour::Red, 23), 1);
    }

    #[test]
    fn a_piece_about_to_turn_home_threatens_nothing_beyond_its_home_row() {
        // Green's piece on T18 has progress 39: it turns into its home row
        // after T19, so red's piece on T21 is out of its reach.
        let p = position(
            &[
                (Colour::Red, ["T21", "H1", "H2", "H3"]),
                (Colour::Green, ["T18", "H1", "H2", "H3"]),
            ],
            Colour::Red,
        );
        let board = Board::new(&p);
        assert_eq!(board.hit_chance(Colour::Red, 21), 0);
    }
}
