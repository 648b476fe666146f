//! The hard player's hand-made evaluation of a classic position: each
//! colour's cost is the turns it needs by the race table, the expected loss
//! of its threatened pieces, its pieces' exposure on the way home and its
//! wait for its roll, weighted by [`weight`].

use super::board::{Board, LAST_TRACK, square};
use super::race::{Race, TURN};
use super::reach::{CERTAIN, Reach};
use crate::bot::playable::Values;
use crate::rules::classic::Game;

/// The weights of the evaluation, in thousandths of a logit of winning per
/// unit of each term (a colour's chance of winning is taken as a softmax of
/// minus its cost). They come from tournaments against random and medium
/// players: a coordinate search around them found no step that gained more
/// than the noise of 10,000 games (docs/bots.md). That search read the
/// danger as every opponent piece free to move; it was not run again for
/// the chances of `reach`.
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

/// Each colour's value: how far its cost is below the others'.
/// (`board` and `reach` are `game`'s, worked out once for both
/// evaluations.)
pub fn evaluate(game: &Game, board: &Board, reach: &Reach) -> Values {
    let position = game.position();
    let seats = position.seats();
    if let Some(winner) = game.winner() {
        return Values::won(seats, winner);
    }
    let race = Race::get(game.house());
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
            let hit = i64::from(reach.hit_chance(colour, square(colour, spot)));
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
