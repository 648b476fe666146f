//! The controller of a game on one device (against the computer, or passed
//! from hand to hand): plain Rust over [`crate::rules::Game`], with no
//! window, so every behaviour the board shows is tested here.
//!
//! Besides the rules' position it keeps each piece's identity (which of a
//! colour's four pieces stands where), because the rules only know *where*
//! a colour has pieces, while the board animates one piece moving.

use crate::rules::board::TRACK_LEN;
use crate::rules::{Colour, Die, FlowError, Game, Move, Next, Place, Rolled, RuleSet, Seats};

use super::fairness::{Fairness, Roll};
use super::turn_clock::{Tick, TurnClock};
use crate::bot::{self, Level};
use crate::protocol::header::TurnTimer;

/// The level at which the computer acts for a person whose turn timer ran
/// out (as the stand-in of online games).
pub const STAND_IN: Level = Level::Medium;

/// Who plays a colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person at this device.
    Human { name: String },
    /// The computer.
    Computer { level: Level },
}

/// How a new game is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// One player per seated colour, clockwise from red (2, 3 or 4).
    pub players: Vec<Player>,
    /// Classic with house rules (the Croatian preset among them) or Matfyz.
    pub rules: RuleSet,
    /// The time each person has for a roll or a move.
    pub timer: TurnTimer,
}

/// A game this controller cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSetup {
    #[error("a game has 2 to 4 players, not {0}")]
    Players(usize),
    /// The board of the Matfyz rules (shared pieces, base and home
    /// contents per player) is not drawn yet.
    #[error("only classic games can be played on this board so far")]
    Rules,
}

/// What happened last, for the note below the die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// Nothing worth a note.
    None,
    /// `seat` rolled and no piece could move: the die passes on.
    TurnLost { seat: Colour },
    /// No six yet: `attempt` (2 or 3) of three tries is next.
    TryAgain { attempt: u8 },
    /// A six was moved: the same colour rolls again.
    RollAgain,
    /// A `piece` of that colour was sent back to base `by` a colour.
    Captured { piece: Colour, by: Colour },
    /// The game is over.
    Won { winner: Colour },
}

/// One of the sixteen pieces: colour and which of its four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PieceId {
    pub colour: Colour,
    pub slot: usize,
}

impl PieceId {
    /// 0..16: red's four pieces, then blue's, green's, yellow's.
    pub fn index(self) -> usize {
        self.colour.index() * 4 + self.slot
    }

    /// The piece with `index`, if there is one.
    pub fn from_index(index: usize) -> Option<PieceId> {
        (index < 16).then(|| PieceId {
            colour: Colour::from_index(index / 4),
            slot: index % 4,
        })
    }
}

/// A piece as the board draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceView {
    pub id: PieceId,
    /// Where it stands (home and base squares are its own colour's).
    pub place: Place,
    /// Where it goes if tapped now, when it may move.
    pub target: Option<Place>,
}

/// A game on this device.
pub struct OfflineGame {
    game: Game,
    players: Vec<(Colour, Player)>,
    /// Each piece's place, by colour and slot; base pieces keep their slot
    /// in the base.
    slots: [[Place; 4]; 4],
    last_roll: Option<Die>,
    /// Every roll so far, for the fairness view.
    fairness: Fairness,
    note: Note,
    /// Counts the computer's decisions, so each gets its own seed.
    decisions: u64,
    /// The person's time for the roll or move that is due.
    clock: TurnClock,
}

impl OfflineGame {
    /// A new game: red begins, as in the HoyHop rules for a local game.
    pub fn new(setup: Setup) -> Result<OfflineGame, BadSetup> {
        let count = setup.players.len();
        let seats = u8::try_from(count)
            .ok()
            .and_then(Seats::for_players)
            .ok_or(BadSetup::Players(count))?;
        if setup.rules == RuleSet::Matfyz {
            return Err(BadSetup::Rules);
        }
        let game =
            Game::new(setup.rules, seats, Colour::Red).expect("red is seated in every seating");
        let mut game = OfflineGame::resume(game, setup.players).expect("the players fit the seats");
        game.clock = TurnClock::new(setup.timer);
        Ok(game)
    }

    /// Goes on with `game` (for example a position loaded for a test or a
    /// screenshot), `players` for its seated colours clockwise.
    pub fn resume(game: Game, players: Vec<Player>) -> Result<OfflineGame, BadSetup> {
        if !matches!(game, Game::Classic(_)) {
            return Err(BadSetup::Rules);
        }
        let seats = game.seats();
        if players.len() != seats.len() {
            return Err(BadSetup::Players(players.len()));
        }
        let mut slots = [[Place::Base; 4]; 4];
        for colour in seats.iter() {
            slots[colour.index()] = places(&game, colour);
        }
        Ok(OfflineGame {
            game,
            players: seats.iter().zip(players).collect(),
            slots,
            last_roll: None,
            fairness: Fairness::default(),
            note: Note::None,
            decisions: 0,
            clock: TurnClock::new(TurnTimer::None),
        })
    }

    /// The rules' game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The seated colours and their players, clockwise from red.
    pub fn players(&self) -> &[(Colour, Player)] {
        &self.players
    }

    /// Who plays `colour` (`None` when it is not seated).
    pub fn player(&self, colour: Colour) -> Option<&Player> {
        self.players
            .iter()
            .find(|(c, _)| *c == colour)
            .map(|(_, p)| p)
    }

    /// What the game waits for.
    pub fn next(&self) -> Next {
        self.game.next()
    }

    /// The last roll, shown on the die.
    pub fn last_roll(&self) -> Option<Die> {
        self.last_roll
    }

    /// The rolls of this game, for the fairness view (and for the die,
    /// which spins once per roll, even for a repeat).
    pub fn fairness(&self) -> &Fairness {
        &self.fairness
    }

    /// What happened last.
    pub fn note(&self) -> Note {
        self.note
    }

    /// The computer's level when it is the computer's turn.
    pub fn computer_to_act(&self) -> Option<Level> {
        let seat = match self.game.next() {
            Next::Roll { seat, .. } | Next::Move { seat } => seat,
            Next::Won { .. } => return None,
        };
        match self.player(seat)? {
            Player::Computer { level } => Some(*level),
            Player::Human { .. } => None,
        }
    }

    /// Rolls `die` for the colour in turn.
    pub fn roll(&mut self, die: Die) -> Result<Note, FlowError> {
        let by_computer = self.computer_to_act().is_some();
        self.roll_as(die, by_computer)
    }

    /// The seconds a person has left for the roll or move that is due;
    /// `None` when the game has no turn timer or the computer is to act.
    pub fn time_left(&self) -> Option<u16> {
        let person = !matches!(self.next(), Next::Won { .. }) && self.computer_to_act().is_none();
        self.clock.left().filter(|_| person)
    }

    /// One second passed: counts down a person's time. [`Tick::Up`] means
    /// it ran out and [`OfflineGame::stand_in`] is due.
    pub fn tick(&mut self) -> Tick {
        match self.time_left() {
            Some(_) => self.clock.tick(),
            None => Tick::Off,
        }
    }

    /// The computer acts for the person whose time ran out: rolls the die
    /// `roll` gives, or plays the move the [`STAND_IN`] level chooses.
    pub fn stand_in(&mut self, roll: impl FnOnce() -> Die) -> Result<Note, FlowError> {
        match self.game.next() {
            Next::Roll { .. } => self.roll_as(roll(), true),
            Next::Move { .. } => self.play_bot(STAND_IN),
            Next::Won { .. } => Err(FlowError::GameOver),
        }
    }

    fn roll_as(&mut self, die: Die, by_computer: bool) -> Result<Note, FlowError> {
        let seat = match self.game.next() {
            Next::Roll { seat, .. } => seat,
            Next::Move { .. } => return Err(FlowError::MoveDue),
            Next::Won { .. } => return Err(FlowError::GameOver),
        };
        let rolled = self.game.roll(die)?;
        self.clock.restart();
        self.last_roll = Some(die);
        self.fairness.record(Roll {
            seat,
            die,
            by_computer,
        });
        self.note = match rolled {
            Rolled::Move => Note::None,
            Rolled::Again => Note::RollAgain,
            Rolled::TryAgain { attempt } => Note::TryAgain { attempt },
            Rolled::TurnLost => Note::TurnLost { seat },
        };
        Ok(self.note)
    }

    /// Every piece on the board, with where it may go now.
    pub fn pieces(&self) -> Vec<PieceView> {
        let moves = self.game.legal_moves();
        let mut pieces = Vec::with_capacity(16);
        for colour in self.game.seats().iter() {
            let mut base_target_given = false;
            for (slot, &place) in self.slots[colour.index()].iter().enumerate() {
                let mut target = moves
                    .iter()
                    .map(|&mv| endpoints(mv))
                    .find(|&(c, from, _)| c == colour && from == place)
                    .map(|(_, _, to)| to);
                // Several pieces in base share one move: offer it on the
                // first of them, so one tap brings exactly one piece out.
                if place == Place::Base && target.is_some() {
                    if base_target_given {
                        target = None;
                    }
                    base_target_given = true;
                }
                pieces.push(PieceView {
                    id: PieceId { colour, slot },
                    place,
                    target,
                });
            }
        }
        pieces
    }

    /// Moves `piece`, which must be able to move.
    pub fn play_piece(&mut self, piece: PieceId) -> Result<Note, FlowError> {
        match self.game.next() {
            Next::Move { .. } => {}
            Next::Roll { .. } => return Err(FlowError::RollDue),
            Next::Won { .. } => return Err(FlowError::GameOver),
        }
        let place = self.slots[piece.colour.index()][piece.slot];
        let mv = self
            .game
            .legal_moves()
            .into_iter()
            .find(|&mv| {
                let (colour, from, _) = endpoints(mv);
                colour == piece.colour && from == place
            })
            .ok_or(FlowError::Illegal)?;
        self.play(mv, piece.slot)
    }

    /// Lets the computer move, when it is the computer's move.
    pub fn play_computer(&mut self) -> Result<Note, FlowError> {
        let level = self.computer_to_act().ok_or(FlowError::Illegal)?;
        self.play_bot(level)
    }

    /// Plays the move the computer chooses at `level`.
    fn play_bot(&mut self, level: Level) -> Result<Note, FlowError> {
        self.decisions += 1;
        let mv = bot::choose(&self.game, level, self.decisions).ok_or(FlowError::RollDue)?;
        let (colour, from, _) = endpoints(mv);
        let slot = self.slots[colour.index()]
            .iter()
            .position(|&p| p == from)
            .ok_or(FlowError::Illegal)?;
        self.play(mv, slot)
    }

    /// Plays `mv`, whose piece is in `slot` of its colour.
    fn play(&mut self, mv: Move, slot: usize) -> Result<Note, FlowError> {
        let played = self.game.play(mv)?;
        self.clock.restart();
        let (colour, _, to) = endpoints(mv);
        self.slots[colour.index()][slot] = to;
        if let Some(capture) = played.captured {
            let victim = &mut self.slots[capture.piece.index()];
            if let Some(slot) = victim.iter_mut().find(|p| **p == to) {
                *slot = Place::Base;
            }
        }
        debug_assert!(self.slots_match_the_rules());
        let rolled_six = self.last_roll.is_some_and(Die::is_six);
        self.note = match (played.won, played.captured) {
            (true, _) => Note::Won { winner: colour },
            (false, Some(capture)) => Note::Captured {
                piece: capture.piece,
                by: colour,
            },
            (false, None) if rolled_six => Note::RollAgain,
            (false, None) => Note::None,
        };
        Ok(self.note)
    }

    fn slots_match_the_rules(&self) -> bool {
        self.game.seats().iter().all(|colour| {
            let mut mine = self.slots[colour.index()];
            mine.sort();
            let mut rules = places(&self.game, colour);
            rules.sort();
            mine == rules
        })
    }

    /// The seated colours from first to last place: the winner first, then
    /// by pieces home, then by how far the pieces have come.
    pub fn placings(&self) -> Vec<Colour> {
        let mut colours: Vec<Colour> = self.game.seats().iter().collect();
        let winner = match self.game.next() {
            Next::Won { winner } => Some(winner),
            _ => None,
        };
        colours.sort_by_key(|&c| {
            let places = self.slots[c.index()];
            let home = places
                .iter()
                .filter(|p| matches!(p, Place::Home(_)))
                .count();
            let progress: u32 = places.iter().map(|&p| u32::from(progress(c, p))).sum();
            std::cmp::Reverse((Some(c) == winner, home, progress))
        });
        colours
    }
}

/// Where `colour`'s pieces stand under the rules (classic games only).
pub(super) fn places(game: &Game, colour: Colour) -> [Place; 4] {
    match game {
        Game::Classic(g) => g.position().places(colour),
        Game::Matfyz(_) => unreachable!("OfflineGame::resume refuses Matfyz games"),
    }
}

/// The moving colour and its piece's place before and after `mv`
/// (classic moves only).
pub(super) fn endpoints(mv: Move) -> (Colour, Place, Place) {
    match mv {
        Move::Classic(m) => (m.colour(), m.from(), m.to()),
        Move::Matfyz(_) => unreachable!("OfflineGame::resume refuses Matfyz games"),
    }
}

/// How far a piece of `colour` on `place` has come: 0 in base, 1..=40 on
/// the track from its start square, 41..=44 home.
fn progress(colour: Colour, place: Place) -> u8 {
    match place {
        Place::Base => 0,
        Place::Track(n) => (n + TRACK_LEN - colour.start()) % TRACK_LEN + 1,
        Place::Home(h) => TRACK_LEN + h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{HouseRules, classic};

    fn die(n: u8) -> Die {
        Die::new(n).unwrap()
    }

    fn human(name: &str) -> Player {
        Player::Human { name: name.into() }
    }

    fn two_humans() -> OfflineGame {
        OfflineGame::new(Setup {
            players: vec![human("Anna"), human("Boris")],
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::None,
        })
        .unwrap()
    }

    /// A classic game at `pieces`, `turn` to roll.
    fn at(seats: u8, turn: Colour, pieces: &[(Colour, [&str; 4])]) -> OfflineGame {
        let seats = Seats::for_players(seats).unwrap();
        let pieces: Vec<(Colour, Vec<Place>)> = pieces
            .iter()
            .map(|(c, ps)| (*c, ps.iter().map(|p| p.parse().unwrap()).collect()))
            .collect();
        let position = classic::Position::new(seats, turn, &pieces).unwrap();
        let game = Game::Classic(classic::Game::new(HouseRules::default(), position));
        let players = (0..seats.len()).map(|i| human(&format!("P{i}"))).collect();
        OfflineGame::resume(game, players).unwrap()
    }

    #[test]
    fn a_game_has_two_to_four_players() {
        for n in [0, 1, 5] {
            let setup = Setup {
                players: vec![human("x"); n],
                rules: RuleSet::Classic(HouseRules::default()),
                timer: TurnTimer::None,
            };
            assert_eq!(OfflineGame::new(setup).err(), Some(BadSetup::Players(n)));
        }
        let game = two_humans();
        let colours: Vec<Colour> = game.players().iter().map(|(c, _)| *c).collect();
        assert_eq!(colours, [Colour::Red, Colour::Green]);
    }

    #[test]
    fn the_croatian_preset_forbids_jumping_in_the_home_row() {
        let game = OfflineGame::new(Setup {
            players: vec![human("Ana"), human("Ivo")],
            rules: RuleSet::Classic(HouseRules::CROATIAN),
            timer: TurnTimer::None,
        })
        .unwrap();
        assert_eq!(game.game().rules(), RuleSet::Classic(HouseRules::CROATIAN));
    }

    #[test]
    fn a_matfyz_setup_is_refused_until_its_board_is_drawn() {
        let setup = Setup {
            players: vec![human("Anna"), human("Boris")],
            rules: RuleSet::Matfyz,
            timer: TurnTimer::None,
        };
        assert_eq!(OfflineGame::new(setup).err(), Some(BadSetup::Rules));
    }

    #[test]
    fn matfyz_games_are_refused_until_their_board_is_drawn() {
        let seats = Seats::for_players(2).unwrap();
        let game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
        let players = vec![human("Anna"), human("Boris")];
        assert_eq!(
            OfflineGame::resume(game, players).err(),
            Some(BadSetup::Rules)
        );
    }

    #[test]
    fn red_rolls_first_and_the_die_shows_the_roll() {
        let mut game = two_humans();
        assert_eq!(
            game.next(),
            Next::Roll {
                seat: Colour::Red,
                attempt: 1
            }
        );
        assert_eq!(game.last_roll(), None);
        game.roll(die(3)).unwrap();
        assert_eq!(game.last_roll(), Some(die(3)));
    }

    #[test]
    fn every_roll_is_recorded_for_the_fairness_view() {
        let mut game = two_humans();
        for n in [2, 2, 2, 6] {
            game.roll(die(n)).unwrap();
        }
        let colours: Vec<Colour> = game.fairness().history().iter().map(|r| r.seat).collect();
        assert_eq!(
            colours,
            [Colour::Red, Colour::Red, Colour::Red, Colour::Green]
        );
        assert_eq!(game.fairness().faces(Colour::Red), [0, 3, 0, 0, 0, 0]);
        assert_eq!(game.fairness().faces(Colour::Green), [0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn second_and_third_try_of_three_are_noted() {
        let mut game = two_humans();
        assert_eq!(game.roll(die(2)), Ok(Note::TryAgain { attempt: 2 }));
        assert_eq!(game.roll(die(2)), Ok(Note::TryAgain { attempt: 3 }));
        assert_eq!(game.roll(die(2)), Ok(Note::TurnLost { seat: Colour::Red }));
        assert_eq!(
            game.next(),
            Next::Roll {
                seat: Colour::Green,
                attempt: 1
            }
        );
    }

    #[test]
    fn a_six_offers_one_base_piece_and_it_comes_out() {
        let mut game = two_humans();
        game.roll(Die::SIX).unwrap();
        let movable: Vec<PieceView> = game
            .pieces()
            .into_iter()
            .filter(|p| p.target.is_some())
            .collect();
        assert_eq!(movable.len(), 1);
        assert_eq!(movable[0].target, Some(Place::Track(0)));
        assert_eq!(game.play_piece(movable[0].id), Ok(Note::RollAgain));
        let red = game.pieces()[movable[0].id.index()];
        assert_eq!(red.place, Place::Track(0));
    }

    #[test]
    fn a_piece_that_cannot_move_is_refused() {
        let mut game = two_humans();
        game.roll(Die::SIX).unwrap();
        let green = PieceId {
            colour: Colour::Green,
            slot: 0,
        };
        assert!(matches!(game.play_piece(green), Err(FlowError::Illegal)));
        let red = PieceId {
            colour: Colour::Red,
            slot: 0,
        };
        game.play_piece(red).unwrap();
        assert_eq!(game.play_piece(red), Err(FlowError::RollDue));
    }

    #[test]
    fn a_capture_is_noted_and_the_captured_piece_goes_back_to_its_base() {
        let mut game = at(
            2,
            Colour::Red,
            &[
                (Colour::Red, ["T3", "B", "B", "B"]),
                (Colour::Green, ["T5", "T22", "B", "B"]),
            ],
        );
        game.roll(die(2)).unwrap();
        let red = game
            .pieces()
            .into_iter()
            .find(|p| p.place == Place::Track(3))
            .unwrap();
        assert_eq!(red.target, Some(Place::Track(5)));
        assert_eq!(
            game.play_piece(red.id),
            Ok(Note::Captured {
                piece: Colour::Green,
                by: Colour::Red
            })
        );
        let green: Vec<Place> = game
            .pieces()
            .into_iter()
            .filter(|p| p.id.colour == Colour::Green)
            .map(|p| p.place)
            .collect();
        // The captured piece keeps its identity (its slot) and is in base.
        assert_eq!(
            green,
            [Place::Base, Place::Base, Place::Track(22), Place::Base]
        );
        assert_eq!(
            game.next(),
            Next::Roll {
                seat: Colour::Green,
                attempt: 1
            }
        );
    }

    #[test]
    fn the_last_piece_home_wins_and_places_the_winner_first() {
        let mut game = at(
            3,
            Colour::Blue,
            &[
                (Colour::Red, ["H1", "T20", "B", "B"]),
                (Colour::Blue, ["H1", "H2", "H3", "T8"]),
                (Colour::Green, ["B", "B", "B", "B"]),
            ],
        );
        game.roll(die(5)).unwrap();
        let blue = game
            .pieces()
            .into_iter()
            .find(|p| p.place == Place::Track(8))
            .unwrap();
        assert_eq!(blue.target, Some(Place::Home(4)));
        assert_eq!(
            game.play_piece(blue.id),
            Ok(Note::Won {
                winner: Colour::Blue
            })
        );
        assert_eq!(
            game.next(),
            Next::Won {
                winner: Colour::Blue
            }
        );
        assert_eq!(game.placings(), [Colour::Blue, Colour::Red, Colour::Green]);
        assert!(game.pieces().iter().all(|p| p.target.is_none()));
    }

    #[test]
    fn the_computer_acts_only_on_its_own_turn() {
        let mut game = OfflineGame::new(Setup {
            players: vec![human("Anna"), Player::Computer { level: Level::Easy }],
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::None,
        })
        .unwrap();
        assert_eq!(game.computer_to_act(), None);
        assert!(game.play_computer().is_err());
        for _ in 0..3 {
            game.roll(die(1)).unwrap();
        }
        assert_eq!(game.computer_to_act(), Some(Level::Easy));
        game.roll(Die::SIX).unwrap();
        assert_eq!(game.play_computer(), Ok(Note::RollAgain));
    }

    fn timed(timer: TurnTimer) -> OfflineGame {
        OfflineGame::new(Setup {
            players: vec![human("Anna"), human("Boris")],
            rules: RuleSet::Classic(HouseRules::default()),
            timer,
        })
        .unwrap()
    }

    #[test]
    fn an_offline_game_has_no_turn_timer_unless_chosen() {
        let mut game = two_humans();
        assert_eq!(game.time_left(), None);
        assert_eq!(game.tick(), Tick::Off);
    }

    #[test]
    fn when_the_time_runs_out_the_computer_rolls_and_moves_for_the_person() {
        let mut game = timed(TurnTimer::Seconds10);
        assert_eq!(game.time_left(), Some(10));
        for left in (1..10).rev() {
            assert_eq!(game.tick(), Tick::Left(left));
        }
        assert_eq!(game.tick(), Tick::Up);
        assert_eq!(game.stand_in(|| Die::SIX), Ok(Note::None));
        assert!(game.fairness().history()[0].by_computer);
        // The next decision has the full time again.
        assert_eq!(game.time_left(), Some(10));
        assert_eq!(game.next(), Next::Move { seat: Colour::Red });
        game.stand_in(|| unreachable!("no roll is due")).unwrap();
        let red = game.pieces()[0];
        assert_eq!(red.place, Place::Track(0));
    }

    #[test]
    fn the_computer_standing_in_plays_the_same_moves_every_time() {
        let play = || {
            let mut game = timed(TurnTimer::Seconds20);
            let mut dice = super::super::dice::Dice::from_seed([9; 32]);
            for _ in 0..200 {
                if matches!(game.next(), Next::Won { .. }) {
                    break;
                }
                game.stand_in(|| dice.roll()).unwrap();
            }
            game.pieces()
        };
        assert_eq!(play(), play());
    }

    #[test]
    fn the_timer_does_not_run_while_the_computer_plays() {
        let mut game = OfflineGame::new(Setup {
            players: vec![human("Anna"), Player::Computer { level: Level::Easy }],
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::Seconds10,
        })
        .unwrap();
        for _ in 0..3 {
            game.roll(die(1)).unwrap();
        }
        assert_eq!(game.computer_to_act(), Some(Level::Easy));
        assert_eq!(game.time_left(), None);
        assert_eq!(game.tick(), Tick::Off);
    }

    #[test]
    fn a_whole_game_against_the_computer_ends_with_a_winner() {
        let mut game = OfflineGame::new(Setup {
            players: vec![
                Player::Computer { level: Level::Easy },
                Player::Computer {
                    level: Level::Medium,
                },
                Player::Computer { level: Level::Hard },
                Player::Computer {
                    level: Level::Medium,
                },
            ],
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::None,
        })
        .unwrap();
        let mut dice = super::super::dice::Dice::from_seed([3; 32]);
        for _ in 0..20_000 {
            match game.next() {
                Next::Roll { .. } => {
                    game.roll(dice.roll()).unwrap();
                }
                Next::Move { .. } => {
                    game.play_computer().unwrap();
                }
                Next::Won { winner } => {
                    assert_eq!(game.placings()[0], winner);
                    return;
                }
            }
        }
        panic!("no winner after 20 000 steps");
    }
}
