//! Games, wins, losses and the win rate (the Croatian text's reference
//! figure) per player, per rule set and overall, and the dice faces each
//! player rolled, summed over the records.
//!
//! The win rate is wins / (wins + losses), where leaving on purpose counts
//! two losses ([`Outcome::losses`]): a player who won one game and left
//! another has a win rate of 1 / 3.

use std::collections::BTreeMap;
use std::fmt;

use super::record::{Outcome, Record};

/// Counts over some games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub games: u32,
    pub wins: u32,
    /// Losses, a leave counting two.
    pub losses: u32,
    pub left: u32,
    pub dropped: u32,
}

impl Tally {
    fn add(&mut self, outcome: Outcome) {
        self.games += 1;
        self.wins += u32::from(outcome == Outcome::Won);
        self.losses += outcome.losses();
        self.left += u32::from(outcome == Outcome::Left);
        self.dropped += u32::from(outcome == Outcome::Dropped);
    }

    /// Wins over wins and losses in `steps` to the whole (100: per cent),
    /// rounded; `None` before the first game. Only a perfect record rounds
    /// to `steps` and only no win to 0: 199 wins of 200 are 99 per cent,
    /// not the perfect record that plain rounding would show.
    pub fn win_rate(&self, steps: u32) -> Option<u32> {
        let decided = u128::from(self.wins) + u128::from(self.losses);
        let wins = u128::from(self.wins);
        let steps = u128::from(steps);
        let rounded = (2 * wins * steps + decided).checked_div(2 * decided)?;
        let rounded = match wins {
            0 => 0,
            _ if wins == decided => steps,
            _ => rounded.clamp(1.min(steps), steps.saturating_sub(1).max(1)),
        };
        Some(u32::try_from(rounded).unwrap_or(u32::MAX))
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "games {} wins {} losses {} left {} dropped {} win-rate ",
            self.games, self.wins, self.losses, self.left, self.dropped
        )?;
        match self.win_rate(1000) {
            Some(per_mille) => write!(f, "{}.{}%", per_mille / 10, per_mille % 10),
            None => f.write_str("-"),
        }
    }
}

/// One player's statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerStats {
    pub peer: String,
    /// The nickname of their latest recorded game that had one.
    pub name: String,
    pub overall: Tally,
    pub by_rules: BTreeMap<String, Tally>,
    /// How often each face, 1 to 6, came up in their rolls.
    pub dice: [u64; 6],
}

/// Every player's statistics over `records` (in the order recorded), most
/// games first, then by name.
pub fn players<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<PlayerStats> {
    let mut by_peer: BTreeMap<&str, PlayerStats> = BTreeMap::new();
    for record in records {
        for played in &record.players {
            let stats = by_peer.entry(&played.peer).or_insert_with(|| PlayerStats {
                peer: played.peer.clone(),
                ..PlayerStats::default()
            });
            if !played.name.is_empty() {
                stats.name.clone_from(&played.name);
            }
            // Listed (a friend), with the dice rolled so far, but no game
            // to count.
            if played.outcome != Outcome::Unfinished {
                stats.overall.add(played.outcome);
                stats
                    .by_rules
                    .entry(record.rules.clone())
                    .or_default()
                    .add(played.outcome);
            }
            for (total, &n) in stats.dice.iter_mut().zip(&played.dice) {
                *total += u64::from(n);
            }
        }
    }
    let mut players: Vec<PlayerStats> = by_peer.into_values().collect();
    players
        .sort_by(|a, b| (b.overall.games.cmp(&a.overall.games)).then_with(|| a.name.cmp(&b.name)));
    players
}

/// The players `me` met: everyone else in the records `me` is in, with
/// their statistics over those games, most games first. A record without
/// `me` (a file copied from another phone) is no game with them.
pub fn met(records: &[Record], me: &str) -> Vec<PlayerStats> {
    with(records, me).1
}

/// `me`'s statistics (`None`: in no record) and the players `me` met
/// ([`met`]), from one pass over the records.
pub fn with(records: &[Record], me: &str) -> (Option<PlayerStats>, Vec<PlayerStats>) {
    let together = records
        .iter()
        .filter(|r| r.players.iter().any(|p| p.peer == me));
    let mut met = players(together);
    let mine = met
        .iter()
        .position(|p| p.peer == me)
        .map(|at| met.remove(at));
    (mine, met)
}

impl fmt::Display for PlayerStats {
    /// `player <peer> name <name> <overall>`, a line per rule set and a
    /// line of dice faces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.name.is_empty() {
            "-"
        } else {
            &self.name
        };
        writeln!(f, "player {} name {name:?} {}", self.peer, self.overall)?;
        for (rules, tally) in &self.by_rules {
            // The file's word, escaped: a line break in it would start a
            // line of its own.
            writeln!(f, "  rules {} {tally}", rules.escape_debug())?;
        }
        write!(f, "  dice")?;
        for (face, n) in self.dice.iter().enumerate() {
            write!(f, " {}:{n}", face + 1)?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Played;

    fn game(rules: &str, outcomes: &[(&str, Outcome)]) -> Record {
        Record {
            game: format!("{rules}{outcomes:?}"),
            rules: rules.to_owned(),
            players: outcomes
                .iter()
                .map(|&(peer, outcome)| Played {
                    peer: peer.to_owned(),
                    name: format!("nick-{peer}"),
                    outcome,
                    dice: [1, 0, 0, 0, 0, 2],
                })
                .collect(),
        }
    }

    #[test]
    fn win_rate_counts_a_leave_as_two_losses_and_a_drop_as_one() {
        let records = [
            game("classic", &[("a", Outcome::Won), ("b", Outcome::Lost)]),
            game("classic", &[("a", Outcome::Left), ("b", Outcome::Won)]),
            game("matfyz", &[("a", Outcome::Dropped), ("b", Outcome::Won)]),
        ];
        let stats = players(&records);
        let a = stats.iter().find(|p| p.peer == "a").unwrap();
        assert_eq!(
            a.overall,
            Tally {
                games: 3,
                wins: 1,
                losses: 3,
                left: 1,
                dropped: 1
            }
        );
        assert_eq!(a.overall.win_rate(100), Some(25));
        assert_eq!(a.by_rules["classic"].win_rate(1000), Some(333));
        assert_eq!(a.by_rules["matfyz"].win_rate(100), Some(0));
        assert_eq!(a.dice, [3, 0, 0, 0, 0, 6]);
        assert_eq!(a.name, "nick-a");
        let b = stats.iter().find(|p| p.peer == "b").unwrap();
        assert_eq!(b.overall.win_rate(1000), Some(667));
    }

    #[test]
    fn a_player_still_playing_when_this_one_left_is_listed_with_no_game() {
        let records = [
            game(
                "classic",
                &[("a", Outcome::Left), ("b", Outcome::Unfinished)],
            ),
            game("matfyz", &[("a", Outcome::Won), ("c", Outcome::Lost)]),
        ];
        let stats = players(&records);
        let b = stats.iter().find(|p| p.peer == "b").unwrap();
        assert_eq!(b.overall, Tally::default());
        assert!(b.by_rules.is_empty(), "{:?}", b.by_rules);
        assert_eq!(b.name, "nick-b");
        assert_eq!(b.dice, [1, 0, 0, 0, 0, 2], "the dice rolled so far");
        assert_eq!(stats.last().unwrap().peer, "b", "fewest games last");
    }

    #[test]
    fn the_players_met_are_the_others_of_the_games_together() {
        let records = [
            game("classic", &[("a", Outcome::Won), ("b", Outcome::Lost)]),
            game("classic", &[("c", Outcome::Won), ("b", Outcome::Lost)]),
            game("classic", &[("a", Outcome::Lost), ("d", Outcome::Won)]),
            game("classic", &[("a", Outcome::Won), ("b", Outcome::Lost)]),
        ];
        let met: Vec<_> = met(&records, "a")
            .into_iter()
            .map(|p| (p.peer, p.overall.games))
            .collect();
        // Not c, whom a never played, nor b's game with c.
        assert_eq!(met, [("b".to_owned(), 2), ("d".to_owned(), 1)]);
    }

    #[test]
    fn a_rule_set_with_a_line_break_prints_on_one_line() {
        let records = [game(
            "classic\nplayer forged",
            &[("a", Outcome::Won), ("b", Outcome::Lost)],
        )];
        let printed = players(&records)[0].to_string();
        assert_eq!(printed.lines().count(), 3, "{printed}");
        assert!(printed.contains(r"classic\nplayer forged"), "{printed}");
    }

    #[test]
    fn no_games_is_no_win_rate() {
        assert_eq!(Tally::default().win_rate(100), None);
        assert!(Tally::default().to_string().ends_with("win-rate -"));
    }

    #[test]
    fn only_a_perfect_record_rounds_to_the_whole_and_only_no_win_to_0() {
        let rate = |wins, losses, steps| {
            Tally {
                wins,
                losses,
                ..Tally::default()
            }
            .win_rate(steps)
        };
        assert_eq!(rate(1, 0, 100), Some(100));
        assert_eq!(rate(199, 1, 100), Some(99));
        assert_eq!(rate(2, 1, 100), Some(67));
        assert_eq!(rate(1, 299, 100), Some(1));
        assert_eq!(rate(0, 5, 100), Some(0));
        assert_eq!(rate(u32::MAX, 1, 100), Some(99), "no overflow");
        assert_eq!(rate(u32::MAX, 1, u32::MAX), Some(u32::MAX - 1));
        assert_eq!(rate(1, 1, 0), Some(0), "no steps, no panic");
        assert_eq!(rate(1, 1, 1), Some(1));
        let printed = |wins, losses| {
            let tally = Tally {
                games: wins + losses,
                wins,
                losses,
                ..Tally::default()
            };
            tally.to_string().rsplit(' ').next().unwrap().to_owned()
        };
        assert_eq!(printed(1999, 1), "99.9%");
        assert_eq!(printed(1, 3999), "0.1%");
        assert_eq!(printed(1, 2), "33.3%");
        assert_eq!(printed(3, 0), "100.0%");
        assert_eq!(printed(0, 3), "0.0%");
    }
}
