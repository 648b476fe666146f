//! The classic rules as the computer players see them: the turn flow of
//! [`classic::Game`], the medium player's rule of thumb and the hard
//! player's evaluation.
//!
//! - [`board`]: every piece's progress and the medium player's idea of
//!   danger.
//! - [`reach`]: the chance of each square being hit, by the rules' own moves.
//! - [`race`]: the expected turns a colour needs to finish when it plays
//!   alone.
//! - [`hand`]: the hard player's hand-made evaluation, built on the race.
//! - [`features`] and [`learnt`]: its evaluation learnt by self-play.

mod board;
pub mod features;
mod hand;
mod learnt;
mod race;
mod reach;

use super::playable::{LOGIT_UNIT, Playable, Values};
use crate::rules::classic::{self, HouseRules, Move, Phase};
use crate::rules::{Die, Next};
use board::{Board, LAST_TRACK, square};
use race::TURN;
use reach::Reach;

// The hard player averages the hand-made evaluation (in turns of the race
// table) with the learnt one (in logits): one logit is one turn's units.
const _: () = assert!(TURN == LOGIT_UNIT);

/// Builds the race table of `house` now rather than on the hard player's
/// first move ([`super::prepare`]).
pub(super) fn prepare(house: HouseRules) {
    race::Race::get(house);
}

impl Playable for classic::Game {
    type Move = Move;

    /// The hand-made weights are in thousandths of a logit per turn and a
    /// cost is their sum times [`TURN`] over 1000; the learnt scores are in
    /// [`LOGIT_UNIT`]ths of a logit, which is the same unit.
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

    /// The mean of the hand-made and the learnt evaluation: in
    /// tournaments it played better than either alone (docs/bots.md).
    fn evaluate(&self) -> Values {
        // Both read the board and the opponents' reach: worked out once.
        let position = self.position();
        let (board, reach) = (Board::new(position), Reach::new(position, self.house()));
        Values::mean(
            hand::evaluate(self, &board, &reach),
            learnt::evaluate(self, &board, &reach),
        )
    }
}
