//! The classic rules as the computer players see them: the turn flow of
//! [`classic::Game`] and the two heuristics, both built on a [`Board`] that
//! knows how far every piece has come and which pieces threaten it.

use super::playable::{Playable, Values};
use crate::rules::board::{HOME_LEN, TRACK_LEN};
use crate::rules::classic::{self, Move, Phase, Position};
use crate::rules::{Colour, Die, Next, Place, Seats};

/// Chances are counted in 36ths (two dice), so they stay integers.
const CERTAIN: i32 = 36;
/// Progress of a piece on its last track square.
const LAST_TRACK: u8 = TRACK_LEN;
/// Progress of a piece on its deepest home square.
const GOAL: i32 = (TRACK_LEN + HOME_LEN) as i32;
/// What a piece in base costs on top of its whole way round, in pips: it
/// waits for a six, and the six spent on coming out moves it one square.
const BASE_COST: i32 = 8;
/// A pip still to go in the home row costs this many 36ths of a pip: home
/// pieces are safe, and moving them deeper only makes room.
const HOME_PIP: i32 = 9;
/// What being about to roll is worth, in 36ths of a pip (about one roll).
const TEMPO: i32 = 4 * CERTAIN;

/// Progress of a piece of `colour` on `place`, as the classic engine counts
/// it: 0 in base, 1..=40 along the track from the colour's start square,
/// 41..=44 in the home row.
fn progress(colour: Colour, place: Place) -> u8 {
    match place {
        Place::Base => 0,
        Place::Track(square) => (square + TRACK_LEN - colour.start()) % TRACK_LEN + 1,
        Place::Home(h) => LAST_TRACK + h,
    }
}

/// Track square of `colour`'s progress `spot` (1..=40).
fn square(colour: Colour, spot: u8) -> u8 {
    (colour.start() + spot - 1) % TRACK_LEN
}

/// Every piece's progress, looked up once per position.
struct Board {
    seats: Seats,
    progress: [[u8; 4]; 4],
}

impl Board {
    fn new(position: &Position) -> Board {
        let mut progress = [[0; 4]; 4];
        for colour in position.seats().iter() {
            progress[colour.index()] = position.places(colour).map(|p| self::progress(colour, p));
        }
        Board {
            seats: position.seats(),
            progress,
        }
    }

    fn pieces(&self, colour: Colour) -> [u8; 4] {
        self.progress[colour.index()]
    }

    fn in_base(&self, colour: Colour) -> bool {
        self.pieces(colour).contains(&0)
    }

    fn on_track(&self, colour: Colour) -> impl Iterator<Item = u8> {
        self.pieces(colour)
            .into_iter()
            .filter(|&p| (1..=LAST_TRACK).contains(&p))
    }

    /// The chance, in 36ths, that a piece of `victim` on track square
    /// `target` is captured before `victim` moves again: each opponent
    /// piece 1..=6 squares behind it hits it with one roll (6/36), 7..=12
    /// behind with a six and another roll (1/36); an opponent with pieces
    /// in base hits its own start square when it comes out, and the squares
    /// up to six beyond with a six and another roll.
    fn hit_chance(&self, victim: Colour, target: u8) -> i32 {
        let mut chance = 0;
        for attacker in self.seats.iter().filter(|&c| c != victim) {
            for spot in self.on_track(attacker) {
                let distance = (target + TRACK_LEN - square(attacker, spot)) % TRACK_LEN;
                // A piece that would turn into its home row first cannot hit.
                if distance == 0 || spot + distance > LAST_TRACK {
                    continue;
                }
                chance += match distance {
                    1..=6 => 6,
                    7..=12 => 1,
                    _ => 0,
                };
            }
            if self.in_base(attacker) {
                let beyond = (target + TRACK_LEN - attacker.start()) % TRACK_LEN;
                chance += match beyond {
                    // With nothing on the track it has three tries for a six.
                    0 if self.on_track(attacker).next().is_none() => 15,
                    0 => 6,
                    1..=6 => 1,
                    _ => 0,
                };
            }
        }
        chance.min(CERTAIN)
    }

    /// Whether an opponent piece stands 1..=6 squares behind track square
    /// `target`, or an opponent with pieces in base starts on it: the
    /// medium player's plain idea of danger.
    fn threatened(&self, victim: Colour, target: u8) -> bool {
        self.hit_chance(victim, target) >= 6
    }

    /// The work `colour` still has to do, in 36ths of a pip: every piece's
    /// way to the end of the home row, base pieces' wait for a six, and the
    /// expected loss of each track piece that may be captured.
    fn cost(&self, colour: Colour) -> i32 {
        self.pieces(colour)
            .into_iter()
            .map(|spot| {
                let spot = i32::from(spot);
                match spot {
                    0 => (GOAL + BASE_COST) * CERTAIN,
                    1..=40 => {
                        let at = square(colour, spot as u8);
                        let loss = self.hit_chance(colour, at) * (spot + BASE_COST);
                        (GOAL - spot) * CERTAIN + loss
                    }
                    _ => (GOAL - spot) * HOME_PIP,
                }
            })
            .sum()
    }
}

impl Playable for classic::Game {
    type Move = Move;

    fn next(&self) -> Next {
        let seat = self.position().turn();
        match self.phase() {
            Phase::Roll { attempt } => Next::Roll { seat, attempt },
            Phase::Move { .. } => Next::Move { seat },
            Phase::Won => Next::Won { winner: seat },
        }
    }

    fn roll(&mut self, die: Die) {
        // Only called when a roll is due, where rolling cannot fail.
        let _ = classic::Game::roll(self, die);
    }

    fn moves(&self) -> impl Iterator<Item = Move> {
        let moves = self.legal_moves();
        (0..moves.len()).filter_map(move |i| moves.get(i))
    }

    fn play(&mut self, mv: Move) -> bool {
        classic::Game::play(self, mv).is_ok()
    }

    /// Captures first, then getting home, escaping a threat, clearing the
    /// start square and not landing in front of an opponent; otherwise
    /// the piece furthest ahead.
    fn rate(&self, mv: Move) -> i32 {
        let colour = mv.colour();
        let (from, to) = mv.progress();
        let before = Board::new(self.position());
        let mut after = *self.position();
        let captured = after.apply(mv);
        let after = Board::new(&after);
        let mut score = i32::from(from);
        if let Some(victim) = captured {
            let lost = before
                .on_track(victim)
                .find(|&s| square(victim, s) == square(colour, to))
                .unwrap_or(0);
            score += 60 + i32::from(lost);
        }
        if to > LAST_TRACK {
            score += if from <= LAST_TRACK { 50 } else { -20 };
        }
        if (1..=LAST_TRACK).contains(&from) && before.threatened(colour, square(colour, from)) {
            score += 30;
        }
        if (1..=LAST_TRACK).contains(&to) && after.threatened(colour, square(colour, to)) {
            score -= 40;
        }
        if from == 1 && before.in_base(colour) {
            score += 20;
        }
        score
    }

    fn evaluate(&self) -> Values {
        let position = self.position();
        let seats = position.seats();
        if let Some(winner) = self.winner() {
            return Values::won(seats, winner);
        }
        let board = Board::new(position);
        let mut cost = [0; 4];
        for colour in seats.iter() {
            cost[colour.index()] = board.cost(colour);
        }
        cost[position.turn().index()] -= TEMPO;
        Values::from_costs(seats, cost)
    }
}
