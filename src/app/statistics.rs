//! The statistics screen: this phone's player's games, wins and win rate
//! per rule set, their leaves and drops, the dice faces they rolled, and
//! the players they met with their record in those games, read from the
//! statistics file that online games (and `clovece stats`) keep in the
//! app's data folder.
//!
//! The player is the one whose identity key is in the data folder; a
//! folder without a key has never played online, so it has no games.

use std::path::{Path, PathBuf};

use slint::{ComponentHandle, ModelRc, VecModel};

use super::ui::{self, AppWindow, StatisticsAdapter};
use crate::lobby::options::rules;
use crate::net::identity::{self, IdentityError, KEY_FILE};
use crate::rules::RuleSet;
use crate::stats::{PlayerStats, StatsError, Store, Tally, tally};

/// What the screen shows.
#[derive(Debug)]
pub enum Statistics {
    /// Nothing recorded for this player yet.
    NoGames,
    /// The player's statistics, the other players' in the games they
    /// played with this one (most games first), and how many damaged
    /// lines of the file were skipped (the rest is shown).
    Shown {
        player: PlayerStats,
        others: Vec<PlayerStats>,
        damaged: usize,
    },
    /// The file or the identity could not be read at all.
    Unreadable(LoadError),
}

/// Why the statistics cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Stats(#[from] StatsError),
    #[error(transparent)]
    Identity(#[from] IdentityError),
}

impl Statistics {
    /// The statistics of the player whose data folder is `data`.
    pub fn load(data: &Path) -> Statistics {
        Self::try_load(data).unwrap_or_else(Statistics::Unreadable)
    }

    fn try_load(data: &Path) -> Result<Statistics, LoadError> {
        let me = match identity::load(&data.join(KEY_FILE)) {
            Ok(keypair) => keypair.public().to_peer_id().to_base58(),
            Err(e) if e.is_missing() => return Ok(Statistics::NoGames),
            Err(e) => return Err(e.into()),
        };
        let loaded = Store::new(data).load()?;
        let (player, mut others) = tally::with(&loaded.records, &me);
        // A friend listed in a game that never finished has no game to
        // show.
        others.retain(|p| p.overall.games > 0);
        Ok(match player {
            Some(player) => Statistics::Shown {
                player,
                others,
                damaged: loaded.damaged.len(),
            },
            None => Statistics::NoGames,
        })
    }
}

/// A rule set's name as the statistics file keeps it (`classic`,
/// `croatian`, `matfyz`, `classic+no-jump-home,…`), read back.
pub fn rule_set(name: &str) -> Option<RuleSet> {
    let (base, house) = name.split_once('+').unwrap_or((name, ""));
    let house: Vec<String> = house
        .split(',')
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
        .collect();
    rules(base, &house).ok()
}

/// A rule set as the UI names it.
pub(super) fn rules_data(rules: Option<RuleSet>) -> ui::RulesData {
    let (kind, house) = match rules {
        Some(RuleSet::Matfyz) => (ui::RulesKind::Matfyz, Default::default()),
        Some(RuleSet::Classic(h)) if h == crate::rules::HouseRules::CROATIAN => {
            (ui::RulesKind::Croatian, Default::default())
        }
        Some(RuleSet::Classic(h)) => (ui::RulesKind::Classic, h),
        None => (ui::RulesKind::Unknown, Default::default()),
    };
    ui::RulesData {
        kind,
        compulsory_capture: house.compulsory_capture,
        optional_bring_out: house.optional_bring_out,
        no_jump_home: house.no_jump_home,
    }
}

/// Wires the statistics screen: it reads the file each time it opens.
pub(super) fn connect(window: &AppWindow, data: PathBuf) {
    let weak = window.as_weak();
    window.global::<StatisticsAdapter>().on_load(move || {
        if let Some(window) = weak.upgrade() {
            show(
                &window.global::<StatisticsAdapter>(),
                &Statistics::load(&data),
            );
        }
    });
}

fn show(adapter: &StatisticsAdapter<'_>, statistics: &Statistics) {
    adapter.set_problem(Default::default());
    adapter.set_damaged(0);
    match statistics {
        Statistics::NoGames => adapter.set_state(ui::StatsState::NoGames),
        Statistics::Unreadable(e) => {
            adapter.set_state(ui::StatsState::Unreadable);
            adapter.set_problem(e.to_string().into());
        }
        Statistics::Shown {
            player,
            others,
            damaged,
        } => {
            adapter.set_state(ui::StatsState::Shown);
            adapter.set_damaged(count(*damaged as u64));
            adapter.set_name(player.name.as_str().into());
            adapter.set_overall(tally_data(&player.overall));
            let by_rules: Vec<ui::RulesTally> = player
                .by_rules
                .iter()
                .map(|(name, tally)| ui::RulesTally {
                    rules: rules_data(rule_set(name)),
                    name: name.as_str().into(),
                    tally: tally_data(tally),
                })
                .collect();
            adapter.set_by_rules(ModelRc::new(VecModel::from(by_rules)));
            let dice: Vec<i32> = player.dice.iter().map(|&n| count(n)).collect();
            adapter.set_most(dice.iter().copied().max().unwrap_or(0));
            adapter.set_dice(ModelRc::new(VecModel::from(dice)));
            let others: Vec<ui::PlayerTally> = others
                .iter()
                .map(|p| ui::PlayerTally {
                    name: p.name.as_str().into(),
                    tally: tally_data(&p.overall),
                })
                .collect();
            adapter.set_others(ModelRc::new(VecModel::from(others)));
        }
    }
}

fn tally_data(tally: &Tally) -> ui::TallyData {
    ui::TallyData {
        games: count(u64::from(tally.games)),
        wins: count(u64::from(tally.wins)),
        losses: count(u64::from(tally.losses)),
        left: count(u64::from(tally.left)),
        dropped: count(u64::from(tally.dropped)),
        win_rate: tally.win_rate(100).map_or(-1, |p| count(p.into())),
    }
}

fn count(n: u64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::HouseRules;
    use crate::stats::{Outcome, Played, Record};

    /// A data folder with an identity, and its player's peer id.
    fn folder() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let me = identity::load_or_create(dir.path()).unwrap();
        (dir, me.public().to_peer_id().to_base58())
    }

    fn game(id: &str, rules: &str, me: &str, outcome: Outcome) -> Record {
        let other = libp2p::PeerId::random().to_base58();
        Record {
            game: id.to_owned(),
            rules: rules.to_owned(),
            players: vec![
                Played {
                    peer: me.to_owned(),
                    name: "Ana".to_owned(),
                    outcome,
                    dice: [1, 2, 3, 4, 5, 6],
                },
                Played {
                    peer: other,
                    name: "Bo".to_owned(),
                    outcome: Outcome::Lost,
                    dice: [9; 6],
                },
            ],
        }
    }

    #[test]
    fn a_folder_without_an_identity_has_no_games() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(Statistics::load(dir.path()), Statistics::NoGames));
    }

    #[test]
    fn a_player_without_records_has_no_games() {
        let (dir, _) = folder();
        let store = Store::new(dir.path());
        let stranger = libp2p::PeerId::random().to_base58();
        store
            .add(game("a", "classic", &stranger, Outcome::Won))
            .unwrap();
        assert!(matches!(Statistics::load(dir.path()), Statistics::NoGames));
    }

    #[test]
    fn the_statistics_are_this_phones_players_with_a_leave_counting_twice() {
        let (dir, me) = folder();
        let store = Store::new(dir.path());
        store.add(game("a", "classic", &me, Outcome::Won)).unwrap();
        store.add(game("b", "classic", &me, Outcome::Left)).unwrap();
        store.add(game("c", "matfyz", &me, Outcome::Won)).unwrap();
        let Statistics::Shown {
            player, damaged, ..
        } = Statistics::load(dir.path())
        else {
            panic!("no statistics");
        };
        assert_eq!(damaged, 0);
        assert_eq!(player.name, "Ana");
        assert_eq!(player.overall.games, 3);
        assert_eq!(player.overall.losses, 2);
        assert_eq!(tally_data(&player.overall).win_rate, 50);
        assert_eq!(tally_data(&player.by_rules["classic"]).win_rate, 33);
        assert_eq!(player.dice, [3, 6, 9, 12, 15, 18]);
    }

    #[test]
    fn the_players_met_are_counted_in_their_games_with_this_one() {
        let (dir, me) = folder();
        let store = Store::new(dir.path());
        let with_me = |id: &str| game(id, "classic", &me, Outcome::Lost);
        let mut first = with_me("a");
        first.players[1].outcome = Outcome::Won;
        let bo = first.players[1].peer.clone();
        let mut second = with_me("b");
        second.players[1].peer.clone_from(&bo);
        // A game this player did not play (copied from another phone)
        // is not Bo's with them.
        let stranger = libp2p::PeerId::random().to_base58();
        let mut elsewhere = game("c", "classic", &stranger, Outcome::Lost);
        elsewhere.players[1].peer.clone_from(&bo);
        for record in [first, second, elsewhere, with_me("d")] {
            store.add(record).unwrap();
        }
        let Statistics::Shown { others, .. } = Statistics::load(dir.path()) else {
            panic!("no statistics");
        };
        let met: Vec<_> = others
            .iter()
            .map(|p| (p.peer == bo, p.overall.games, p.overall.wins))
            .collect();
        assert_eq!(met, [(true, 2, 1), (false, 1, 0)], "most games first");
    }

    #[test]
    fn damaged_lines_are_counted_and_the_rest_shown() {
        let (dir, me) = folder();
        let store = Store::new(dir.path());
        store.add(game("a", "classic", &me, Outcome::Won)).unwrap();
        let mut text = std::fs::read_to_string(store.path()).unwrap();
        text.push_str("{\"torn\n");
        std::fs::write(store.path(), text).unwrap();
        let Statistics::Shown {
            damaged, player, ..
        } = Statistics::load(dir.path())
        else {
            panic!("the readable game is not shown");
        };
        assert_eq!((damaged, player.overall.games), (1, 1));
    }

    #[test]
    fn an_unreadable_file_or_identity_is_a_clear_message() {
        let (dir, _) = folder();
        // A folder where the file should be cannot be read.
        std::fs::create_dir(dir.path().join(crate::stats::store::FILE)).unwrap();
        let Statistics::Unreadable(e) = Statistics::load(dir.path()) else {
            panic!("a folder read as statistics");
        };
        assert!(
            e.to_string().contains("cannot read the statistics file"),
            "{e}"
        );

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(KEY_FILE), b"not a key").unwrap();
        let Statistics::Unreadable(e) = Statistics::load(dir.path()) else {
            panic!("a damaged key read as a player");
        };
        assert!(e.to_string().contains("not a valid identity key"), "{e}");
    }

    #[test]
    fn rule_set_names_of_the_file_read_back() {
        assert_eq!(
            rule_set("classic"),
            Some(RuleSet::Classic(HouseRules::default()))
        );
        assert_eq!(
            rule_set("croatian"),
            Some(RuleSet::Classic(HouseRules::CROATIAN))
        );
        assert_eq!(rule_set("matfyz"), Some(RuleSet::Matfyz));
        let both = rule_set("classic+compulsory-capture,no-jump-home").unwrap();
        assert_eq!(
            crate::lobby::options::rules_name(both),
            "classic+compulsory-capture,no-jump-home"
        );
        assert_eq!(rule_set("chess"), None);
        assert_eq!(rule_set("classic+flying"), None);
    }
}
