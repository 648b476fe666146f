//! The classic rules as the computer players see them: the turn flow of
//! [`classic::Game`], the medium player's rule of thumb and the hard
//! player's evaluation.
//!
//! - [`board`]: every piece's progress and the chance of each square being
//!   hit.
//! - [`race`]: the expected turns a colour needs to finish when it plays
//!   alone.

mod board;
mod race;

use super::playable::{Playable, Values};
use crate::rules::classic::{self, Move, Phase};
use crate::rules::{Die, Next};
use board::{Board, CERTAIN, LAST_TRACK, square};
use race::{Race, TURN};

/// The weights of the evaluation, in thousandths of a logit of winning per
/// unit of each term (a colour's chance of winning is taken as a softmax of
/// minus its cost). They come from tournaments against random and medium
/// players: a coordinate search around them found no step that gained more
/// than the noise of 10,000 games (docs/bots.md).
mod weight {
    /// Per turn the colour still needs by the race table.
    pub const RACE: i64 = 354;
    /// Per turn of expected loss from a capture before the colour moves
    /// again.
    pub const DANGER: i64 = 300;
    /// Taken off each threatened piece's danger (not below nothing), per
    /// unit of hit chance: the first 2.6 turns of a loss do not count, as a
    /// piece near its start costs little to lose and is soon back.
    pub const DANGER_FREE: i64 = 792;
    /// Per unit of a track piece's exposure on its way home,
    /// `(41 - p)(p + 8) / 100` turns for progress `p`: the squares still to
    /// cross times what is lost if it is hit. It makes a piece far ahead
    /// hurry home, which the race table alone (no captures) does not.
    pub const EXPOSURE: i64 = 111;
    /// Per turn of waiting for one's roll (a colour `j` places after the
    /// one to roll waits `j / n` of a round).
    pub const ORDER: i64 = 129;
}

impl Playable for classic::Game {
    type Move = Move;

    /// The weights are in thousandths of a logit per turn, and a cost is
    /// their sum times [`TURN`] over 1000.
    const LOGIT: i64 = TURN;

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

    /// Each colour's cost: the turns it needs by the race table, the
    /// expected loss of its threatened pieces, its pieces' exposure on the
    /// way home and its wait for its roll, weighted by [`weight`].
    fn evaluate(&self) -> Values {
        let position = self.position();
        let seats = position.seats();
        if let Some(winner) = self.winner() {
            return Values::won(seats, winner);
        }
        let race = Race::get(self.house());
        let board = Board::new(position);
        let players = seats.len() as i64;
        let mut cost = [0; 4];
        let mut colour = position.turn();
        for waiting in 0..players {
            let spots = board.pieces(colour);
            let turns = race.turns(spots);
            let mut total = weight::RACE * turns + weight::ORDER * waiting * TURN / players;
            for (i, &spot) in spots.iter().enumerate() {
                if !(1..=LAST_TRACK).contains(&spot) {
                    continue;
                }
                let hit = i64::from(board.hit_chance(colour, square(colour, spot)));
                let mut captured = spots;
                captured[i] = 0;
                let loss = race.turns(captured) - turns;
                let p = i64::from(spot);
                let danger = (weight::DANGER * loss - weight::DANGER_FREE * TURN).max(0);
                total += hit * danger / i64::from(CERTAIN)
                    + weight::EXPOSURE * TURN * (41 - p) * (p + 8) / 100;
            }
            cost[colour.index()] = i32::try_from(total / 1000).unwrap_or(i32::MAX);
            colour = seats.after(colour);
        }
        Values::from_costs(seats, cost)
    }
}
