//! The choices last made on the setup screens (a game on this device, a
//! room to host), kept with the settings so that the next game, after a
//! restart too, is set up as the last one was. They are kept as the
//! screens hold them and checked when shown again, so a damaged or older
//! file offers the defaults rather than a setup the screens cannot show.

use serde::{Deserialize, Serialize};
use slint::{ComponentHandle, Model, VecModel};

use super::settings::{BoardTheme, or_default};
use super::ui::{self, AppWindow, RoomAdapter, SetupAdapter};
use crate::lobby::options::TurnTime;
use crate::protocol::header::TurnTimer;
use crate::rules::{Colour, Seats};

/// A setup screen's choice of rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rules {
    #[default]
    Classic,
    Croatian,
    Matfyz,
}

/// The choices of both setup screens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Choices {
    #[serde(deserialize_with = "or_default")]
    pub game: GameChoices,
    #[serde(deserialize_with = "or_default")]
    pub room: RoomChoices,
}

/// A game on this device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameChoices {
    pub vs_computer: bool,
    pub players: u8,
    pub rules: Rules,
    /// The computer's level, 0 easy to 2 hard.
    pub level: u8,
    /// The person's colour against the computer: red 0, blue 1, green 2,
    /// yellow 3 (by seat, clockwise, before session 48: the same for red,
    /// and for every colour in a game of four).
    pub seat: u8,
    /// Pass and play: a name per colour, as `seat` (by seat before).
    pub names: Vec<String>,
    /// Pass and play: seconds per roll or move, 0 for none.
    pub turn_time: u8,
}

impl Default for GameChoices {
    /// As the setup screen starts.
    fn default() -> GameChoices {
        GameChoices {
            vs_computer: true,
            players: 2,
            rules: Rules::Classic,
            level: 1,
            seat: 0,
            names: Vec::new(),
            turn_time: 0,
        }
    }
}

/// A room to host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RoomChoices {
    pub private: bool,
    pub players: u8,
    pub turn_time: u8,
    pub board: BoardTheme,
    pub rules: Rules,
    /// 0 random, 1 red, 2 highest roll, 3 first six.
    pub first: u8,
}

impl Default for RoomChoices {
    /// As the host screen starts.
    fn default() -> RoomChoices {
        RoomChoices {
            private: false,
            players: 4,
            turn_time: 30,
            board: BoardTheme::Classic,
            rules: Rules::Classic,
            first: 0,
        }
    }
}

/// The seats a game has.
const PLAYERS: std::ops::RangeInclusive<u8> = 2..=4;

impl Choices {
    /// The choices the screens of `window` show, with the pass-and-play
    /// `names`.
    pub fn read(window: &AppWindow, names: &VecModel<slint::SharedString>) -> Choices {
        let setup = window.global::<SetupAdapter>();
        let room = window.global::<RoomAdapter>();
        let byte = |n: i32| u8::try_from(n).unwrap_or(0);
        Choices {
            game: GameChoices {
                vs_computer: setup.get_vs_computer(),
                players: byte(setup.get_players()),
                rules: from_ui(setup.get_rules()),
                level: byte(setup.get_level()),
                seat: byte(setup.get_seat()),
                names: names.iter().map(|n| n.to_string()).collect(),
                turn_time: byte(setup.get_turn_time()),
            },
            room: RoomChoices {
                private: room.get_private(),
                players: byte(room.get_players()),
                turn_time: byte(room.get_turn_time()),
                board: match room.get_board() {
                    ui::BoardTheme::Classic => BoardTheme::Classic,
                    ui::BoardTheme::Sea => BoardTheme::Sea,
                },
                rules: from_ui(room.get_rules()),
                first: byte(room.get_first()),
            },
        }
    }

    /// Shows the choices on the screens of `window`, each one the screens
    /// cannot show replaced by its default; the pass-and-play names that
    /// were kept go into `names` (an empty one leaves its colour's name).
    pub fn show(&self, window: &AppWindow, names: &VecModel<slint::SharedString>) {
        let (game, room) = (self.checked_game(), self.checked_room());
        let setup = window.global::<SetupAdapter>();
        setup.set_vs_computer(game.vs_computer);
        setup.set_players(game.players.into());
        setup.set_rules(to_ui(game.rules));
        setup.set_level(game.level.into());
        setup.set_seat(game.seat.into());
        setup.set_turn_time(game.turn_time.into());
        for (seat, name) in game.names.iter().enumerate().take(names.row_count()) {
            if !name.is_empty() {
                names.set_row_data(seat, name.as_str().into());
            }
        }
        let adapter = window.global::<RoomAdapter>();
        adapter.set_private(room.private);
        adapter.set_players(room.players.into());
        adapter.set_turn_time(room.turn_time.into());
        adapter.set_board(match room.board {
            BoardTheme::Classic => ui::BoardTheme::Classic,
            BoardTheme::Sea => ui::BoardTheme::Sea,
        });
        adapter.set_rules(to_ui(room.rules));
        adapter.set_first(room.first.into());
    }

    /// The game's choices, each one out of range at its default.
    fn checked_game(&self) -> GameChoices {
        let (g, default) = (&self.game, GameChoices::default());
        let players = within(g.players, PLAYERS, default.players);
        GameChoices {
            players,
            level: within(g.level, 0..=2, default.level),
            // A colour that plays in a game of `players`.
            seat: (Colour::ALL.get(usize::from(g.seat)))
                .filter(|&&c| Seats::for_players(players).is_some_and(|s| s.contains(c)))
                .map_or(default.seat, |_| g.seat),
            turn_time: TurnTimer::from_seconds(g.turn_time.into())
                .map_or(default.turn_time, |_| g.turn_time),
            ..g.clone()
        }
    }

    /// The room's choices, each one out of range at its default.
    fn checked_room(&self) -> RoomChoices {
        let (r, default) = (&self.room, RoomChoices::default());
        RoomChoices {
            players: within(r.players, PLAYERS, default.players),
            turn_time: TurnTime::from_seconds(r.turn_time.into())
                .map_or(default.turn_time, |_| r.turn_time),
            first: within(r.first, 0..=3, default.first),
            ..r.clone()
        }
    }
}

/// `value` if it is one of `allowed`, else `default`.
fn within(value: u8, allowed: impl IntoIterator<Item = u8>, default: u8) -> u8 {
    if allowed.into_iter().any(|a| a == value) {
        value
    } else {
        default
    }
}

fn from_ui(rules: ui::RuleChoice) -> Rules {
    match rules {
        ui::RuleChoice::Classic => Rules::Classic,
        ui::RuleChoice::Croatian => Rules::Croatian,
        ui::RuleChoice::Matfyz => Rules::Matfyz,
    }
}

fn to_ui(rules: Rules) -> ui::RuleChoice {
    match rules {
        Rules::Classic => ui::RuleChoice::Classic,
        Rules::Croatian => ui::RuleChoice::Croatian,
        Rules::Matfyz => ui::RuleChoice::Matfyz,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_out_of_range_are_offered_at_their_defaults() {
        let damaged = Choices {
            game: GameChoices {
                players: 9,
                level: 7,
                seat: 3,
                turn_time: 45,
                rules: Rules::Matfyz,
                ..GameChoices::default()
            },
            room: RoomChoices {
                players: 1,
                turn_time: 0,
                first: 4,
                private: true,
                ..RoomChoices::default()
            },
        };
        let game = damaged.checked_game();
        assert_eq!(
            (game.players, game.level, game.seat, game.turn_time),
            (2, 1, 0, 0)
        );
        assert_eq!(game.rules, Rules::Matfyz, "what was in range stays");
        let room = damaged.checked_room();
        assert_eq!((room.players, room.turn_time, room.first), (4, 30, 0));
        assert!(room.private);
        // The colour is checked against the players kept: green plays
        // in every game, blue in one of three or four, yellow in one of four.
        let checked = |players, seat| {
            let game = GameChoices {
                players,
                seat,
                ..GameChoices::default()
            };
            let choices = Choices {
                game,
                ..Choices::default()
            };
            choices.checked_game().seat
        };
        assert_eq!([checked(2, 2), checked(2, 1), checked(2, 3)], [2, 0, 0]);
        assert_eq!([checked(3, 1), checked(3, 3), checked(4, 3)], [1, 0, 3]);
        assert_eq!(checked(4, 4), 0, "no fifth colour");
    }
}
