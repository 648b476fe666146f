//! The Matfyz rule set as the computer players see them: the turn flow of
//! [`matfyz::Game`] and one heuristic, the work a seat still has to do to
//! bring one piece of each colour home. A run is a move like any other, so
//! choosing who receives a captured piece and ordering the runs of a
//! multi-six turn are just choices among legal moves.

use super::playable::{Playable, Values};
use crate::rules::board::TRACK_LEN;
use crate::rules::matfyz::{self, Phase, Run};
use crate::rules::{Colour, Die, Next};

/// What a colour still sitting in the seat's own base costs, in pips: a
/// whole lap after waiting for a six (about six rolls of 3.5 pips).
const IN_OWN_BASE: i32 = TRACK_LEN as i32 + 21;
/// What a colour costs that the seat can neither move nor bring out (all of
/// its pieces are in other seats' bases or homes): more than any lap, so
/// that a piece on the track is always worth keeping.
const OUT_OF_REACH: i32 = 2 * TRACK_LEN as i32;

impl Playable for matfyz::Game {
    type Move = Run;

    /// Pips of remaining work per logit of winning, for the rollout player
    /// alone: 16 and 48 played alike in tournaments, 6 worse
    /// (docs/bots.md).
    const LOGIT: i64 = 16;

    fn next(&self) -> Next {
        let seat = self.position().turn();
        match self.phase() {
            Phase::Roll => Next::Roll { seat, attempt: 1 },
            Phase::Move => Next::Move { seat },
            Phase::Won => Next::Won { winner: seat },
        }
    }

    fn roll(&mut self, die: Die) {
        // Only called when a roll is due, where rolling cannot fail.
        let _ = matfyz::Game::roll(self, die);
    }

    fn moves(&self) -> impl Iterator<Item = Run> {
        self.legal_moves().into_iter()
    }

    fn play(&mut self, mv: Run) -> bool {
        matfyz::Game::play(self, mv).is_ok()
    }

    /// How good the seat's own prospects look after the run.
    fn rate(&self, mv: Run) -> i32 {
        let mut after = *self;
        if !Playable::play(&mut after, mv) {
            return i32::MIN;
        }
        after.evaluate().of(mv.seat())
    }

    fn evaluate(&self) -> Values {
        let position = self.position();
        let seats = position.seats();
        if let Some(winner) = self.winner() {
            return Values::won(seats, winner);
        }
        let mut cost = [0; 4];
        for seat in seats.iter() {
            cost[seat.index()] = remaining(position, seat);
        }
        Values::from_costs(seats, cost)
    }
}

/// Pips `seat` still needs: for each colour missing from its home, the
/// nearest piece of that colour it could drive in.
fn remaining(position: &matfyz::Position, seat: Colour) -> i32 {
    let home = position.home(seat);
    let in_base: Vec<Colour> = position.base(seat).collect();
    Colour::ALL
        .into_iter()
        .filter(|colour| !home.contains(&Some(*colour)))
        .map(|colour| {
            let on_track = (0..TRACK_LEN)
                .filter(|&square| position.occupant(square) == Some(colour))
                .map(|square| distance_home(seat, square))
                .min();
            let from_base = in_base.contains(&colour).then_some(IN_OWN_BASE);
            on_track
                .into_iter()
                .chain(from_base)
                .min()
                .unwrap_or(OUT_OF_REACH)
        })
        .sum()
}

/// Pips from track square `square` into `seat`'s home row (to `H1`).
fn distance_home(seat: Colour, square: u8) -> i32 {
    i32::from((seat.home_entrance() + TRACK_LEN - square) % TRACK_LEN) + 1
}
