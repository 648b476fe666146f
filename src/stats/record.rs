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
use crate::protocol::{Act, Control, Digest, Header, Kind, Log, Seat, Signed};
use crate::rules::Colour;

/// How a game ended for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Won the game, or stayed in it when every other player had left on
    /// purpose ([`wins_by_forfeit`]).
    Won,
    /// Another player won, or nobody did (the dice ran out, or the
    /// computer won a seat whose player left or dropped while others
    /// stayed).
    Lost,
    /// Left the started game on purpose: a loss and one extra loss.
    Left,
    /// The phone dropped and had not come back when the game ended, or was
    /// found gone while its own roll waited for it (withheld: the one
    /// moment withholding a reveal could pay, docs/protocol.md), whatever
    /// the end: a loss, with no extra penalty. (Any other drop that comes
    /// back is no drop at all.)
    Dropped,
    /// Still playing when this phone's player left: their result is not
    /// known here, so it counts in no tally, but they played together and
    /// are on this phone's friends list, as after a game played to its end.
    Unfinished,
}

impl Outcome {
    /// The losses the outcome counts.
    pub fn losses(self) -> u32 {
        match self {
            Outcome::Won | Outcome::Unfinished => 0,
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

/// Why a player gives a game up before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GivenUp {
    /// They chose to leave it while it could go on: a leave.
    OnPurpose,
    /// They left it stranded, the other players' phones gone and too many
    /// for this one to play on without (docs/lobby.md), or while their own
    /// phone, found gone again, waited to be let back (no turn of theirs
    /// to sign a leave in comes meanwhile): a drop, as it is on the
    /// others' phones, which never see a leave.
    Stranded,
}

impl GivenUp {
    /// The player's outcome in a game given up so before its end.
    pub fn outcome(self) -> Outcome {
        match self {
            GivenUp::OnPurpose => Outcome::Left,
            GivenUp::Stranded => Outcome::Dropped,
        }
    }
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
    /// over; before that, this player's own leave (which needs no one
    /// else's word: it only costs this player), with the others as this
    /// phone's log has them: left, or still playing. A player who chose to
    /// leave has left, even if the others' certificate took their signed
    /// leave's place and it was not signed again before the phone stopped.
    /// `None` for a game that is neither over nor left.
    pub fn of(finished: &Finished) -> Option<Record> {
        let (log, me) = (finished.phone.log(), finished.phone.seat());
        if finished.phone.leaving() {
            Self::given_up(log, me, GivenUp::OnPurpose, &finished.names)
        } else {
            Self::ended(log, me, &finished.names)
        }
    }

    /// The record of a game from its log if it is over for `me`
    /// ([`Log::over_for`]). None while it goes on.
    pub fn ended(log: &Log, me: Colour, names: &[(PeerId, String)]) -> Option<Record> {
        if !log.over_for(me) {
            return None;
        }
        Self::given_up(log, me, GivenUp::OnPurpose, names)
    }

    /// The record of a game that `me` gives up, from its log: every
    /// player's outcome if it is over or won by forfeit, otherwise this
    /// player's leave or drop, as `how` says (a kept game the player
    /// discards rather than plays to its end), beside the others' leaves
    /// and, for those still playing, [`Outcome::Unfinished`]. None for a
    /// game with one player, the other seats the computer's: like a game on
    /// one device, it is nobody's statistics (a win rate could otherwise be
    /// padded against easy computer players).
    pub fn given_up(
        log: &Log,
        me: Colour,
        how: GivenUp,
        names: &[(PeerId, String)],
    ) -> Option<Record> {
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
                    let outcome = if wins_by_forfeit(log, c) {
                        Outcome::Won
                    } else if result.left.contains(c) {
                        Outcome::Left
                    } else if log.state().withheld(c)
                        || log.state().control(c) == Some(Control::Absent)
                    {
                        Outcome::Dropped
                    } else if result.placings[c.index()] == Some(1) {
                        Outcome::Won
                    } else {
                        Outcome::Lost
                    };
                    (c, outcome)
                })
                .collect(),
            // Leaving before the end (the leave signed, or about to be:
            // the player gave the game up) is a leave, unless everyone
            // else had left first. The others' leaves are recorded as this
            // phone's log holds them, as at the end; those still playing
            // are unfinished.
            None => {
                let forfeit = wins_by_forfeit(log, me);
                log.header()
                    .header
                    .players()
                    .iter()
                    .map(|c| {
                        let outcome = if c == me && forfeit {
                            Outcome::Won
                        } else if log.has_left(c) {
                            Outcome::Left
                        } else if c == me {
                            how.outcome()
                        } else {
                            Outcome::Unfinished
                        };
                        (c, outcome)
                    })
                    .collect()
            }
        };
        Some(Self::from_log(log, &outcomes, names))
    }

    /// The record of a game that another version of the app saved, from
    /// its `header` alone (read unchecked: this version can neither check
    /// nor replay its log): `mine` for this player (`me`), the others'
    /// outcomes not known, and no roll counted. None for a game that counts
    /// in nobody's statistics, as [`Record::given_up`].
    pub fn unread(
        header: &Header,
        me: Colour,
        mine: Outcome,
        names: &[(PeerId, String)],
    ) -> Option<Record> {
        if !counts(&header.seats) {
            return None;
        }
        let outcomes: Vec<(Colour, Outcome)> = players(&header.seats)
            .map(|c| (c, if c == me { mine } else { Outcome::Unfinished }))
            .collect();
        Some(Self::from_header(
            header,
            header.id(),
            &[[0; 6]; 4],
            &outcomes,
            names,
        ))
    }

    fn from_log(log: &Log, outcomes: &[(Colour, Outcome)], names: &[(PeerId, String)]) -> Record {
        let header = &log.header().header;
        Self::from_header(header, log.game(), &log.dice_counts(), outcomes, names)
    }

    /// The record of the game of `header` (whose id is `game`):
    /// `outcomes`, and the faces each colour rolled (`dice`).
    fn from_header(
        header: &Header,
        game: Digest,
        dice: &[[u32; 6]; 4],
        outcomes: &[(Colour, Outcome)],
        names: &[(PeerId, String)],
    ) -> Record {
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
            game: game_id(game),
            rules: rules_name(header.rules),
            players,
        }
    }
}

/// Whether a game of `seats` counts in the statistics: it has two players
/// or more (phones, not computer seats).
pub fn counts(seats: &[Option<Seat>; 4]) -> bool {
    players(seats).count() >= 2
}

/// The colours of `seats` that players (phones) hold.
fn players(seats: &[Option<Seat>; 4]) -> impl Iterator<Item = Colour> + '_ {
    Colour::ALL
        .into_iter()
        .filter(|c| matches!(seats[c.index()], Some(Seat::Player { .. })))
}

/// Whether `me` wins the game of `log` by forfeit ([`forfeit_winner`]).
pub fn wins_by_forfeit(log: &Log, me: Colour) -> bool {
    forfeit_winner(log) == Some(me)
}

/// The player who wins the game of `log` by forfeit, if any: they stayed
/// when every other player had left it on purpose, and withheld none of
/// their own rolls (which counts as a loss whatever the end). They win
/// whether they play on against the computer to the end (even if the
/// computer brings a leaver's seat home first) or leave too (then the game
/// ends, abandoned, at their leave). The quitters otherwise left them a
/// choice between two losses for leaving and a game against the computer
/// that they could lose.
pub fn forfeit_winner(log: &Log) -> Option<Colour> {
    last_standing(log).filter(|&c| !log.state().withheld(c))
}

/// The player who stayed when every other player had left on purpose.
fn last_standing(log: &Log) -> Option<Colour> {
    if !counts(&log.header().header.seats) {
        return None;
    }
    let mut stayed = players(&log.header().header.seats).filter(|&c| !log.has_left(c));
    match (stayed.next(), stayed.next()) {
        (Some(one), None) => Some(one),
        (Some(_), Some(_)) => None,
        (None, _) => match &log.entries().last()?.kind {
            Kind::Player(Signed {
                seat,
                act: Act::Leave,
                ..
            }) => Some(*seat),
            _ => None,
        },
    }
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
        assert_eq!(Outcome::Unfinished.losses(), 0);
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

    /// `seat` leaves `table`'s game in its next turn, the game played on
    /// meanwhile.
    fn leave(table: &mut crate::protocol::sim::Table, seat: Colour) {
        use crate::protocol::{Act, Actor, Due};
        loop {
            match table.log().due() {
                Due::Roll {
                    by: Actor::Player(s),
                    ..
                }
                | Due::Move {
                    by: Actor::Player(s),
                    ..
                } if s == seat => break,
                _ => assert!(table.step(), "the game ended first"),
            }
        }
        let leave = table.sign(seat, Act::Leave).unwrap();
        table.log_mut().offer(leave).unwrap();
    }

    fn outcomes(record: &Record) -> Vec<Outcome> {
        record.players.iter().map(|p| p.outcome).collect()
    }

    /// Blue leaves a game of two: red wins it by forfeit, whether it plays
    /// on against the computer (which may win blue's seat) or leaves too.
    /// With a third player still in, leaving is no one's win.
    #[test]
    fn the_player_everyone_else_left_wins_by_forfeit() {
        use crate::protocol::sim::{Config, Table};
        use crate::protocol::{Change, Colours};
        use crate::rules::Seats;
        let red = Colour::Red;
        let two = Seats::for_players(2).unwrap();
        let other = two.iter().find(|&c| c != red).unwrap();
        for seed in 0..6 {
            let mut table = Table::new(&Config::new(seed, two)).unwrap();
            for _ in 0..8 {
                assert!(table.step());
            }
            leave(&mut table, other);
            // Given up before its leave is signed (a new room, the app
            // killed), it is the same win.
            let record = Record::given_up(table.log(), red, GivenUp::OnPurpose, &[]).unwrap();
            assert_eq!(
                outcomes(&record),
                [Outcome::Won, Outcome::Left],
                "seed {seed}: as at the end, the leaver too"
            );
            let mut left_too = table.clone();
            while table.step() {}
            let record = Record::ended(table.log(), red, &[]).unwrap();
            assert_eq!(
                outcomes(&record),
                [Outcome::Won, Outcome::Left],
                "seed {seed}"
            );
            leave(&mut left_too, red);
            let record = Record::ended(left_too.log(), red, &[]).unwrap();
            assert_eq!(
                outcomes(&record),
                [Outcome::Won, Outcome::Left],
                "seed {seed}"
            );
        }

        // Red withheld its roll once (certified gone while it waited for
        // red's reveal, then back): that counts as a loss, forfeit or not,
        // but not as leaving (an honest phone that went then pays it too).
        let mut table = Table::new(&Config::new(2, two)).unwrap();
        loop {
            match table.log().due() {
                crate::protocol::Due::Roll {
                    by: crate::protocol::Actor::Player(s),
                    ..
                } if s == red && table.log().len() > 6 => break,
                _ => assert!(table.step()),
            }
        }
        let gone = table.certificate(Change::Gone(Colours::one(red))).unwrap();
        table.log_mut().offer(gone).unwrap();
        let back = table.certificate(Change::Back(red)).unwrap();
        table.log_mut().offer(back).unwrap();
        assert!(table.log().state().withheld(red));
        leave(&mut table, other);
        assert!(!wins_by_forfeit(table.log(), red));
        let record = Record::given_up(table.log(), red, GivenUp::OnPurpose, &[]).unwrap();
        assert_eq!(outcomes(&record), [Outcome::Left, Outcome::Left]);
        let record = Record::given_up(table.log(), other, GivenUp::OnPurpose, &[]).unwrap();
        assert_eq!(
            outcomes(&record),
            [Outcome::Unfinished, Outcome::Left],
            "red plays on, as after any drop"
        );
        while table.step() {}
        let record = Record::ended(table.log(), red, &[]).unwrap();
        assert_eq!(outcomes(&record), [Outcome::Dropped, Outcome::Left]);

        let three = Seats::for_players(3).unwrap();
        let mut table = Table::new(&Config::new(1, three)).unwrap();
        leave(&mut table, three.iter().find(|&c| c != red).unwrap());
        leave(&mut table, red);
        let record = Record::ended(table.log(), red, &[]).unwrap();
        // The third plays on: its result is not this phone's to know.
        assert_eq!(
            outcomes(&record),
            [Outcome::Left, Outcome::Left, Outcome::Unfinished]
        );
    }

    /// A game given up stranded is this player's drop, as the others'
    /// phones, which never see a leave, count it; given up on purpose, a
    /// leave. A leave signed before stays a leave.
    #[test]
    fn a_game_given_up_stranded_is_a_drop_and_on_purpose_a_leave() {
        use crate::protocol::sim::{Config, Table};
        use crate::rules::Seats;
        let (red, three) = (Colour::Red, Seats::for_players(3).unwrap());
        let mut table = Table::new(&Config::new(4, three)).unwrap();
        for _ in 0..8 {
            assert!(table.step());
        }
        let given_up =
            |table: &Table, how| outcomes(&Record::given_up(table.log(), red, how, &[]).unwrap());
        let unfinished = Outcome::Unfinished;
        assert_eq!(
            given_up(&table, GivenUp::Stranded),
            [Outcome::Dropped, unfinished, unfinished]
        );
        assert_eq!(
            given_up(&table, GivenUp::OnPurpose),
            [Outcome::Left, unfinished, unfinished]
        );
        leave(&mut table, red);
        assert_eq!(
            given_up(&table, GivenUp::Stranded),
            [Outcome::Left, unfinished, unfinished]
        );
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
