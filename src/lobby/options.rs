//! A room's options as its host chooses them (the Croatian text: open or
//! private, 2–4 players, 10/20/30/60 s turns, classic or sea board; plus
//! the rule set and how the first player is chosen), and the filters of the
//! nearby rooms list, which take the same values.

use std::fmt;
use std::str::FromStr;

use crate::net::game::Table;
use crate::net::room::Listing;
use crate::notation::HouseRuleError;
use crate::protocol::header::DEFAULT_GRACE_SECS;
use crate::protocol::{Theme, TurnTimer};
use crate::rules::{FirstPlayer, HouseRules, RuleSet};

/// Why a room option was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("a room has 2, 3 or 4 players, not {0:?}")]
    Players(String),
    #[error("a turn takes 10, 20, 30 or 60 seconds, not {0:?}")]
    Turn(String),
    #[error("a turn time of \"none\" is for offline games; a room needs 10, 20, 30 or 60 seconds")]
    NoTurnTimeOnline,
    #[error("the board is classic or sea, not {0:?}")]
    Board(String),
    #[error("the rules are classic, croatian or matfyz, not {0:?}")]
    Rules(String),
    #[error("house rules are for the classic rules only")]
    HouseRulesElsewhere,
    #[error(transparent)]
    HouseRule(#[from] HouseRuleError),
    #[error("the first player is random, red, highest-roll or first-six, not {0:?}")]
    First(String),
    #[error("{players} seats with {computers} computer seats leave none for the host")]
    Computers { players: u8, computers: u8 },
}

/// How many seats a room has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Players {
    Two,
    Three,
    #[default]
    Four,
}

impl Players {
    pub fn count(self) -> u8 {
        match self {
            Players::Two => 2,
            Players::Three => 3,
            Players::Four => 4,
        }
    }

    pub fn from_count(count: u8) -> Option<Players> {
        match count {
            2 => Some(Players::Two),
            3 => Some(Players::Three),
            4 => Some(Players::Four),
            _ => None,
        }
    }
}

impl FromStr for Players {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<Players, OptionsError> {
        s.trim()
            .parse()
            .ok()
            .and_then(Players::from_count)
            .ok_or_else(|| OptionsError::Players(s.to_owned()))
    }
}

/// A room's turn time. A room always has one: "none" exists only for
/// offline games ([`TurnTimer::None`]), so it is not a value here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TurnTime {
    Ten,
    Twenty,
    #[default]
    Thirty,
    Sixty,
}

impl TurnTime {
    const ALL: [TurnTime; 4] = [
        TurnTime::Ten,
        TurnTime::Twenty,
        TurnTime::Thirty,
        TurnTime::Sixty,
    ];

    /// The time a turn takes online of `seconds`, if there is one.
    pub fn from_seconds(seconds: u16) -> Option<TurnTime> {
        (Self::ALL.into_iter()).find(|turn| turn.timer().seconds() == Some(seconds))
    }

    pub fn timer(self) -> TurnTimer {
        match self {
            TurnTime::Ten => TurnTimer::Seconds10,
            TurnTime::Twenty => TurnTimer::Seconds20,
            TurnTime::Thirty => TurnTimer::Seconds30,
            TurnTime::Sixty => TurnTimer::Seconds60,
        }
    }
}

impl FromStr for TurnTime {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<TurnTime, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Err(OptionsError::NoTurnTimeOnline),
            // Written as the seconds are, and only so ("10", not "010").
            seconds => (seconds.parse::<u16>().ok())
                .filter(|n| n.to_string() == seconds)
                .and_then(TurnTime::from_seconds)
                .ok_or_else(|| OptionsError::Turn(s.to_owned())),
        }
    }
}

/// The board's look, as the command line and the rooms list name it.
pub fn board(s: &str) -> Result<Theme, OptionsError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "classic" => Ok(Theme::Classic),
        "sea" => Ok(Theme::Sea),
        _ => Err(OptionsError::Board(s.to_owned())),
    }
}

pub fn board_name(theme: Theme) -> &'static str {
    match theme {
        Theme::Classic => "classic",
        Theme::Sea => "sea",
    }
}

/// The rule set named `name` (classic, croatian or matfyz) with the classic
/// house rules `house` (named as in the notation; an empty name is none, as
/// `--house ""` or a trailing comma gives).
pub fn rules(name: &str, house: &[String]) -> Result<RuleSet, OptionsError> {
    let house: Vec<&String> = house.iter().filter(|h| !h.is_empty()).collect();
    match name.trim().to_ascii_lowercase().as_str() {
        "classic" => Ok(RuleSet::Classic(crate::notation::house_rules(house)?)),
        "croatian" | "matfyz" if !house.is_empty() => Err(OptionsError::HouseRulesElsewhere),
        "croatian" => Ok(RuleSet::Classic(HouseRules::CROATIAN)),
        "matfyz" => Ok(RuleSet::Matfyz),
        _ => Err(OptionsError::Rules(name.to_owned())),
    }
}

/// The rule set's name for people and for the statistics: `classic`,
/// `croatian`, `matfyz`, or `classic+` and the house rules switched on.
pub fn rules_name(rules: RuleSet) -> String {
    match rules {
        RuleSet::Matfyz => "matfyz".to_owned(),
        RuleSet::Classic(house) if house == HouseRules::CROATIAN => "croatian".to_owned(),
        RuleSet::Classic(house) if house == HouseRules::default() => "classic".to_owned(),
        RuleSet::Classic(house) => {
            format!("classic+{}", crate::notation::house_names(house).join(","))
        }
    }
}

/// The way of choosing who begins named `s`.
pub fn first(s: &str) -> Result<FirstPlayer, OptionsError> {
    let name = s.trim().to_ascii_lowercase();
    [
        FirstPlayer::Random,
        FirstPlayer::Red,
        FirstPlayer::HighestRoll,
        FirstPlayer::FirstSix,
    ]
    .into_iter()
    .find(|&first| first_name(first) == name)
    .ok_or_else(|| OptionsError::First(s.to_owned()))
}

/// The name of `first` on the command line.
pub fn first_name(first: FirstPlayer) -> &'static str {
    match first {
        FirstPlayer::Random => "random",
        FirstPlayer::Red => "red",
        FirstPlayer::HighestRoll => "highest-roll",
        FirstPlayer::FirstSix => "first-six",
    }
}

/// Everything the host chooses when creating a room. The defaults are the
/// issue's: an open room of 4, classic rules with all house rules off, 30 s
/// turns, the classic board and a random first player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomOptions {
    /// Left out of the nearby rooms list and of lookups by code: only its
    /// ticket joins.
    pub private: bool,
    pub players: Players,
    pub turn: TurnTime,
    pub board: Theme,
    pub rules: RuleSet,
    pub first: FirstPlayer,
}

impl Default for RoomOptions {
    fn default() -> RoomOptions {
        RoomOptions {
            private: false,
            players: Players::default(),
            turn: TurnTime::default(),
            board: Theme::default(),
            rules: RuleSet::Classic(HouseRules::default()),
            first: FirstPlayer::default(),
        }
    }
}

impl RoomOptions {
    /// The table `clovece host` plays.
    pub fn table(&self) -> Table {
        Table {
            players: self.players.count(),
            rules: self.rules,
            private: self.private,
            first: self.first,
            timer: self.turn.timer(),
            theme: self.board,
            grace_secs: DEFAULT_GRACE_SECS,
        }
    }

    /// Checks that `computers` computer seats leave one for the host.
    pub fn check_computers(&self, computers: u8) -> Result<(), OptionsError> {
        let players = self.players.count();
        if computers >= players {
            return Err(OptionsError::Computers { players, computers });
        }
        Ok(())
    }
}

/// The nearby rooms list's filters: any combination; `None` matches all.
/// The player count matches exactly (filtering for 3 shows only rooms of 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub players: Option<Players>,
    pub turn: Option<TurnTime>,
    pub board: Option<Theme>,
}

impl Filter {
    pub fn matches(&self, listing: &Listing) -> bool {
        self.players.is_none_or(|p| p.count() == listing.players)
            && self.turn.is_none_or(|t| t.timer() == listing.timer)
            && self.board.is_none_or(|b| b == listing.theme)
    }
}

/// How the rooms list prints a listing: `players 3 turn 30 board sea rules
/// classic first random`.
pub struct Shown<'a>(pub &'a Listing);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.0;
        let turn = l
            .timer
            .seconds()
            .map_or_else(|| "none".to_owned(), |s| s.to_string());
        write!(
            f,
            "players {} turn {turn} board {} rules {} first {}",
            l.players,
            board_name(l.theme),
            rules_name(l.rules),
            first_name(l.first)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(players: u8, timer: TurnTimer, theme: Theme) -> Listing {
        Listing {
            players,
            rules: RuleSet::Classic(HouseRules::default()),
            timer,
            theme,
            first: crate::rules::FirstPlayer::Random,
        }
    }

    #[test]
    fn defaults_are_an_open_classic_room_of_four_with_30_second_turns() {
        let o = RoomOptions::default();
        assert!(!o.private);
        assert_eq!(o.players.count(), 4);
        assert_eq!(o.turn.timer().seconds(), Some(30));
        assert_eq!(o.board, Theme::Classic);
        assert_eq!(o.rules, RuleSet::Classic(HouseRules::default()));
        assert_eq!(o.first, FirstPlayer::Random);
        let table = o.table();
        assert_eq!(table.timer, TurnTimer::Seconds30);
    }

    #[test]
    fn turn_time_none_is_refused_for_a_room() {
        assert_eq!(
            "none".parse::<TurnTime>(),
            Err(OptionsError::NoTurnTimeOnline)
        );
        assert!(matches!(
            "45".parse::<TurnTime>(),
            Err(OptionsError::Turn(_))
        ));
        assert_eq!("60".parse::<TurnTime>(), Ok(TurnTime::Sixty));
        assert_eq!(" 10 ".parse::<TurnTime>(), Ok(TurnTime::Ten));
        for other in ["0", "010", "+10", "1e1"] {
            assert!(
                matches!(other.parse::<TurnTime>(), Err(OptionsError::Turn(_))),
                "{other}"
            );
        }
        assert_eq!(TurnTime::from_seconds(20), Some(TurnTime::Twenty));
        assert_eq!(
            TurnTime::from_seconds(0),
            None,
            "no turn without a timer online"
        );
    }

    #[test]
    fn player_counts_outside_two_to_four_are_refused() {
        for bad in ["1", "5", "", "three", "-2"] {
            assert!(bad.parse::<Players>().is_err(), "{bad}");
        }
        assert_eq!("3".parse::<Players>(), Ok(Players::Three));
    }

    #[test]
    fn rule_presets_and_house_rules_parse() {
        assert_eq!(
            rules("croatian", &[]),
            Ok(RuleSet::Classic(HouseRules::CROATIAN))
        );
        assert_eq!(
            rules("matfyz", &["no-jump-home".to_owned()]),
            Err(OptionsError::HouseRulesElsewhere)
        );
        assert_eq!(
            rules("classic", &["nope".to_owned()]),
            Err(OptionsError::HouseRule(HouseRuleError::Unknown(
                "nope".to_owned()
            )))
        );
        assert_eq!(
            rules(
                "classic",
                &["no-jump-home".to_owned(), "no-jump-home".to_owned()]
            ),
            Err(OptionsError::HouseRule(HouseRuleError::Repeated(
                "no-jump-home".to_owned()
            )))
        );
        let two = rules(
            "classic",
            &[
                "compulsory-capture".to_owned(),
                "optional-bring-out".to_owned(),
            ],
        )
        .unwrap();
        assert_eq!(
            rules_name(two),
            "classic+compulsory-capture,optional-bring-out"
        );
        assert_eq!(rules_name(rules("croatian", &[]).unwrap()), "croatian");
        // `--house ""`, or a trailing comma.
        let empty = [String::new()];
        assert_eq!(rules("classic", &empty), rules("classic", &[]));
        assert_eq!(rules("croatian", &empty), rules("croatian", &[]));
        let trailing = ["no-jump-home".to_owned(), String::new()];
        assert_eq!(rules("classic", &trailing), rules("croatian", &[]));
    }

    #[test]
    fn computer_seats_must_leave_one_for_the_host() {
        let o = RoomOptions {
            players: Players::Two,
            ..RoomOptions::default()
        };
        assert!(o.check_computers(1).is_ok());
        assert_eq!(
            o.check_computers(2).unwrap_err(),
            OptionsError::Computers {
                players: 2,
                computers: 2
            }
        );
    }

    #[test]
    fn player_count_filter_matches_exactly() {
        let three = Filter {
            players: Some(Players::Three),
            ..Filter::default()
        };
        assert!(three.matches(&listing(3, TurnTimer::Seconds30, Theme::Classic)));
        assert!(!three.matches(&listing(4, TurnTimer::Seconds30, Theme::Classic)));
        assert!(!three.matches(&listing(2, TurnTimer::Seconds30, Theme::Classic)));
    }

    #[test]
    fn every_filter_combination_needs_every_chosen_value() {
        let room = listing(2, TurnTimer::Seconds10, Theme::Sea);
        for players in [None, Some(Players::Two), Some(Players::Four)] {
            for turn in [None, Some(TurnTime::Ten), Some(TurnTime::Sixty)] {
                for board in [None, Some(Theme::Sea), Some(Theme::Classic)] {
                    let filter = Filter {
                        players,
                        turn,
                        board,
                    };
                    let expected = players != Some(Players::Four)
                        && turn != Some(TurnTime::Sixty)
                        && board != Some(Theme::Classic);
                    assert_eq!(filter.matches(&room), expected, "{filter:?}");
                }
            }
        }
    }
}
