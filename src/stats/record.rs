//! What one game adds to the statistics: for each player's seat, who (peer
//! id and nickname), how it ended for them and the dice faces they rolled.
//!
//! A record is made only from a verified game log: the result every player
//! signs is computed from the log, whose entries are all signed, so a phone
//! cannot credit itself a win the log does not show.

use libp2p::PeerId;
use serde::{Deserialize, Serialize};

use crate::lobby::options::rules_name;
use crate::net::book::nickname_of;
use crate::net::game::Finished;
use crate::protocol::{Control, Digest, Log, Seat};
use crate::rules::Colour;

/// How a game ended for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Won,
    /// Another player won, or nobody did (the dice ran out, everyone left).
    Lost,
    /// Left the started game on purpose (or withheld a reveal, which the
    /// game log counts the same): a loss and one extra loss.
    Left,
    /// The phone dropped and had not come back when the game ended: a loss,
    /// with no extra penalty. (A drop that comes back is no drop at all.)
    Dropped,
}

impl Outcome {
    /// The losses the outcome counts.
    pub fn losses(self) -> u32 {
        match self {
            Outcome::Won => 0,
            Outcome::Lost | Outcome::Dropped => 1,
            Outcome::Left => 2,
        }
    }
}

/// One player's part in a recorded game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// The player's PeerId (base58), their identity across games.
    pub peer: String,
    pub name: String,
    pub outcome: Outcome,
    /// How often each face, 1 to 6, came up in their rolls.
    pub dice: [u32; 6],
}

/// One game as the statistics keep it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The game id (hash of the signed header) in hex: a game is recorded
    /// once however often it is offered.
    pub game: String,
    /// The rule set's name (see [`rules_name`]).
    pub rules: String,
    /// The players' seats (computer seats are nobody's statistics).
    pub players: Vec<Played>,
}

impl Record {
    /// The record of `finished`: every player's outcome once the game is
    /// over; before that, only this player's own leave (which needs no one
    /// else's word: it only costs this player). `None` for a game that is
    /// neither over nor left.
    pub fn of(finished: &Finished) -> Option<Record> {
        Self::ended(finished.phone.log(), finished.phone.seat(), &finished.names)
    }

    /// The record of a game from its log if it is over for `me`: it ended,
    /// or `me` left it. None while it goes on.
    pub fn ended(log: &Log, me: Colour, names: &[(PeerId, String)]) -> Option<Record> {
        if log.result().is_none() && log.state().control(me) != Some(Control::Left) {
            return None;
        }
        Self::given_up(log, me, names)
    }

    /// The record of a game that `me` gives up, from its log: every
    /// player's outcome if it is over, otherwise this player's leave (a
    /// kept game the player discards rather than plays to its end). None
    /// for a game with one player, the other seats the computer's: like a
    /// game on one device, it is nobody's statistics (a win rate could
    /// otherwise be padded against easy computer players).
    pub fn given_up(log: &Log, me: Colour, names: &[(PeerId, String)]) -> Option<Record> {
        if !counts(&log.header().header.seats) {
            return None;
        }
        let outcomes: Vec<(Colour, Outcome)> = match log.result() {
            Some(result) => log
                .header()
                .header
                .players()
                .iter()
                .map(|c| {
                    let outcome = if result.left.contains(c) || result.withheld[c.index()] > 0 {
                        Outcome::Left
                    } else if log.state().control(c) == Some(Control::Absent) {
                        Outcome::Dropped
                    } else if result.placings[c.index()] == Some(1) {
                        Outcome::Won
                    } else {
                        Outcome::Lost
                    };
                    (c, outcome)
                })
                .collect(),
            None => vec![(me, Outcome::Left)],
        };
        Some(Self::from_log(log, &outcomes, names))
    }

    fn from_log(log: &Log, outcomes: &[(Colour, Outcome)], names: &[(PeerId, String)]) -> Record {
        let header = &log.header().header;
        let dice = log.dice_counts();
        let players = outcomes
            .iter()
            .filter_map(|&(colour, outcome)| {
                let Some(Seat::Player { key, .. }) = header.seats[colour.index()] else {
                    return None;
                };
                let peer = key.peer_id().ok()?;
                let name = nickname_of(names, peer);
                Some(Played {
                    peer: peer.to_base58(),
                    name,
                    outcome,
                    dice: dice[colour.index()],
                })
            })
            .collect();
        Record {
            game: game_id(log.game()),
            rules: rules_name(header.rules),
            players,
        }
    }
}

/// Whether a game of `seats` counts in the statistics: it has two players
/// or more (phones, not computer seats).
pub fn counts(seats: &[Option<Seat>; 4]) -> bool {
    let players = seats
        .iter()
        .flatten()
        .filter(|s| matches!(s, Seat::Player { .. }));
    players.count() >= 2
}

/// A game's id as records name it: its digest in hex.
pub fn game_id(game: Digest) -> String {
    game.0.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leave_costs_two_losses_and_a_drop_one() {
        assert_eq!(Outcome::Won.losses(), 0);
        assert_eq!(Outcome::Lost.losses(), 1);
        assert_eq!(Outcome::Dropped.losses(), 1);
        assert_eq!(Outcome::Left.losses(), 2);
    }

    /// Red against the computer alone is nobody's statistics, as a game on
    /// one device; with another player beside the computer it counts.
    #[test]
    fn a_game_against_the_computer_alone_is_nobodys_statistics() {
        use crate::protocol::Colours;
        use crate::protocol::sim::{Config, Table};
        use crate::rules::Seats;
        let seats = Seats::for_players(3).unwrap();
        let others: Vec<Colour> = seats.iter().filter(|&c| c != Colour::Red).collect();
        let record = |computers: Colours| {
            let mut config = Config::new(1, seats);
            config.computers = computers;
            let mut table = Table::new(&config).unwrap();
            while table.step() {}
            assert!(table.log().result().is_some(), "the game ended");
            Record::ended(table.log(), Colour::Red, &[])
        };
        let one = Colours::one(others[0]);
        assert_eq!(record(one.with(others[1])), None);
        let counted = record(one).expect("two players");
        assert_eq!(counted.players.len(), 2);
    }

    #[test]
    fn outcomes_are_written_in_kebab_case() {
        let played = Played {
            peer: "x".into(),
            name: "Ana".into(),
            outcome: Outcome::Dropped,
            dice: [1, 2, 3, 4, 5, 6],
        };
        let json = serde_json::to_string(&played).unwrap();
        assert!(json.contains("\"dropped\""), "{json}");
    }
}
