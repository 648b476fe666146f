//! A classic position as the heuristics read it: how far every piece has
//! come, and the medium player's plain idea of danger. (The hard player's
//! chances of being hit are [`super::reach`]'s.)

use crate::rules::board::TRACK_LEN;
use crate::rules::classic::Position;
use crate::rules::{Colour, Place, Seats};

/// Progress of a piece on its colour's last track square.
pub const LAST_TRACK: u8 = TRACK_LEN;

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

/// Every piece's progress, worked out once per position.
pub struct Board {
    seats: Seats,
    progress: [[u8; 4]; 4],
}

impl Board {
    pub fn new(position: &Position) -> Board {
        let seats = position.seats();
        let mut pieces = [[0; 4]; 4];
        for colour in seats.iter() {
            pieces[colour.index()] = position.places(colour).map(|p| progress(colour, p));
        }
        Board {
            seats,
            progress: pieces,
        }
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

    /// The medium player's plain idea of danger: an opponent piece stands
    /// 1..=6 squares behind `target` (and reaches it before turning into
    /// its home row), or an opponent with pieces in base starts on it.
    pub fn threatened(&self, victim: Colour, target: u8) -> bool {
        self.seats.iter().filter(|&c| c != victim).any(|attacker| {
            let behind = (target + TRACK_LEN - attacker.start()) % TRACK_LEN + 1;
            (self.in_base(attacker) && behind == 1)
                || self
                    .on_track(attacker)
                    .any(|spot| spot < behind && behind - spot <= 6)
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::Seats;

    /// The position with these colours' pieces on the notation's places
    /// (`"T3"`, `"B"`, …), `turn` to act.
    pub(in crate::bot::classic) fn position(
        pieces: &[(Colour, [&str; 4])],
        turn: Colour,
    ) -> Position {
        let colours: Vec<Colour> = pieces.iter().map(|(c, _)| *c).collect();
        let seats = Seats::from_colours(&colours).unwrap();
        let pieces: Vec<(Colour, Vec<Place>)> = pieces
            .iter()
            .map(|(c, places)| (*c, places.iter().map(|p| p.parse().unwrap()).collect()))
            .collect();
        Position::new(seats, turn, &pieces).unwrap()
    }

    #[test]
    fn a_piece_one_to_six_squares_ahead_of_an_opponent_is_threatened() {
        let p = position(
            &[
                (Colour::Red, ["B", "B", "B", "T5"]),
                (Colour::Green, ["T1", "T30", "H1", "H2"]),
            ],
            Colour::Red,
        );
        let board = Board::new(&p);
        // Green's T1 piece is 4 behind T5; green's base has nothing left.
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
        assert!(board.threatened(Colour::Red, 20));
        assert!(!board.threatened(Colour::Red, 23));
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
        assert!(!board.threatened(Colour::Red, 21));
        assert!(board.threatened(Colour::Red, 19));
    }
}
