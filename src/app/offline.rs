//! The controller of a game on one device (against the computer, or passed
//! from hand to hand): plain Rust over [`crate::rules::Game`], with no
//! window. The board itself (which piece a tap moves, the Matfyz questions)
//! is the [`Board`] an online game shares; this adds what is local: the
//! dice, the computer's seats, the turn timer and the notes of its own
//! moves.

use serde::{Deserialize, Serialize};

use crate::rules::opening::{Opening, OpeningNext};
use crate::rules::{Colour, Die, FirstPlayer, FlowError, Game, Move, Next, Rolled, RuleSet, Seats};

use super::board::{Board, Note, PieceId, PieceView, Tap};
use super::fairness::{Fairness, Roll};
use super::geometry::Spot;
use super::matfyz::Choice;
use super::turn_clock::{Tick, TurnClock};
use crate::bot::{self, Level};
use crate::protocol::Colours;
use crate::protocol::header::TurnTimer;

/// The level at which the computer acts for a person whose turn timer ran
/// out (as the stand-in of online games).
pub const STAND_IN: Level = Level::Medium;

/// Who plays a colour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Player {
    /// A person at this device.
    Human { name: String },
    /// The computer.
    Computer { level: Level },
}

/// How a new game is set up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// What tapping a piece (or a square, or a choice) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The piece moved; the note says what happened.
    Moved(Note),
    /// The piece can move in several ways: the player is asked
    /// ([`OfflineGame::choice`]) before it moves.
    Asked,
}

/// Everything a new game on this device was made of: its setup, the
/// opening's rolls and every roll and move since, in order. Played again
/// ([`OfflineGame::replay`]) it gives the same game, notes and fairness
/// view included, so that a game the operating system killed with the app
/// can go on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    setup: Setup,
    opening: Vec<Die>,
    steps: Vec<Step>,
}

impl Record {
    /// The game's setup, for "play again".
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Whether `later` is this game, played on (or as far): the same
    /// setup and opening, and every step of this one.
    pub fn leads_to(&self, later: &Record) -> bool {
        self.setup == later.setup
            && self.opening == later.opening
            && later.steps.starts_with(&self.steps)
    }

    /// Whether a person has rolled or moved since the opening (a
    /// computer seat that begins does not make the game the player's).
    pub fn started(&self) -> bool {
        self.steps.iter().any(|step| match *step {
            Step::Roll(_, by_computer) | Step::Move(_, by_computer) => !by_computer,
        })
    }
}

/// A roll or a move of a [`Record`], and whether the computer made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Step {
    Roll(Die, bool),
    Move(Move, bool),
}

/// Why a [`Record`] does not play again: it is not one this version made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Setup(#[from] BadSetup),
    #[error("the opening's rolls do not choose who begins")]
    Opening,
    #[error("step {0} cannot be played")]
    Step(usize),
}

/// A game on this device.
pub struct OfflineGame {
    board: Board,
    players: Vec<(Colour, Player)>,
    /// The roll being used: a six rolls again. Not the fairness history's
    /// last, which the opening rolls set too.
    last_roll: Option<Die>,
    /// Every roll so far, for the fairness view.
    fairness: Fairness,
    note: Note,
    /// Counts the computer's decisions, so each gets its own seed.
    decisions: u64,
    /// The person's time for the roll or move that is due.
    clock: TurnClock,
    /// The seats whose person's time ran out at their last turn, until
    /// they roll again themselves: told at their next turn, as the note
    /// that said so is long gone by then.
    ran_out: Colours,
    /// How to play the game again; none for a game resumed from a position.
    record: Option<Record>,
}

impl OfflineGame {
    /// A new game, its first player chosen as the rules' text says for a
    /// game at one device ([`FirstPlayer::for_local_game`]): red under the
    /// classic rules, as HoyHop's local game; under the Croatian preset
    /// (the first six) and the Matfyz rules (the highest roll) the device
    /// rolls the opening with `roll` for everyone at once, and the note
    /// says who begins. The opening's rolls count in the fairness view.
    pub fn new(setup: Setup, mut roll: impl FnMut() -> Die) -> Result<OfflineGame, BadSetup> {
        Self::open(setup, || Some(roll())).map_err(|e| match e {
            ReplayError::Setup(e) => e,
            _ => unreachable!("a die for every roll of the opening"),
        })
    }

    /// The game `record` was made of, played again.
    pub fn replay(record: Record) -> Result<OfflineGame, ReplayError> {
        let mut opening = record.opening.into_iter();
        let mut game = Self::open(record.setup, || opening.next())?;
        if opening.next().is_some() {
            return Err(ReplayError::Opening);
        }
        for (i, step) in record.steps.into_iter().enumerate() {
            let before = game.note;
            let seat = game.next().mover().ok_or(ReplayError::Step(i))?;
            // The computer acting for a person: their time had run out.
            let stood_in = matches!(game.player(seat), Some(Player::Human { .. }));
            let (played, by_computer) = match step {
                Step::Roll(die, by_computer) => (game.roll_as(die, by_computer), by_computer),
                Step::Move(mv, by_computer) => {
                    game.decisions += u64::from(by_computer);
                    (game.play(mv, by_computer), by_computer)
                }
            };
            let note = played.map_err(|_| ReplayError::Step(i))?;
            if by_computer && stood_in {
                game.timed_out(seat, before, note);
            }
        }
        Ok(game)
    }

    /// [`OfflineGame::new`], the opening's rolls from `roll` (none: the
    /// record ran out of them).
    fn open(
        setup: Setup,
        mut roll: impl FnMut() -> Option<Die>,
    ) -> Result<OfflineGame, ReplayError> {
        let count = setup.players.len();
        let seats = u8::try_from(count)
            .ok()
            .and_then(Seats::for_players)
            .ok_or(BadSetup::Players(count))?;
        let rule = FirstPlayer::for_local_game(setup.rules);
        let mut opening = Opening::new(rule, seats);
        let mut rolls = Vec::new();
        let first = loop {
            match opening.next() {
                OpeningNext::Decided(first) => break first,
                OpeningNext::Roll(seat) => {
                    let die = roll().ok_or(ReplayError::Opening)?;
                    rolls.push((seat, die));
                    opening.roll(die).expect("the opening waits for this roll");
                }
                OpeningNext::Draw => {
                    unreachable!("a game at one device draws no lots (for_local_game)")
                }
            }
        };
        let game = Game::new(setup.rules, seats, first).expect("the opening chose a seated colour");
        let mut game = OfflineGame::resume(game, setup.players.clone())?;
        game.clock = TurnClock::new(setup.timer);
        game.record = Some(Record {
            setup,
            opening: rolls.iter().map(|&(_, die)| die).collect(),
            steps: Vec::new(),
        });
        // Each roll is the seat's own, as in an online game: marked as the
        // computer's only for a computer's seat.
        let rolls = rolls.into_iter().map(|(seat, die)| Roll {
            seat,
            die,
            by_computer: matches!(game.player(seat), Some(Player::Computer { .. })),
        });
        game.fairness = Fairness::from_rolls(rolls.collect::<Vec<_>>());
        if rule != FirstPlayer::Red {
            game.note = Note::Begins { seat: first };
        }
        Ok(game)
    }

    /// Goes on with `game` (for example a position loaded for a test or a
    /// screenshot), `players` for its seated colours clockwise.
    pub fn resume(game: Game, players: Vec<Player>) -> Result<OfflineGame, BadSetup> {
        let seats = game.seats();
        if players.len() != seats.len() {
            return Err(BadSetup::Players(players.len()));
        }
        Ok(OfflineGame {
            players: seats.iter().zip(players).collect(),
            board: Board::new(game),
            last_roll: None,
            fairness: Fairness::default(),
            note: Note::None,
            decisions: 0,
            clock: TurnClock::new(TurnTimer::None),
            ran_out: Colours::NONE,
            record: None,
        })
    }

    /// The rules' game.
    pub fn game(&self) -> &Game {
        self.board.game()
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

    /// The colour of the one person in a game against the computer (none
    /// when several people pass the device round).
    pub fn only_person(&self) -> Option<Colour> {
        let mut people = self
            .players
            .iter()
            .filter(|(_, p)| matches!(p, Player::Human { .. }));
        match (people.next(), people.next()) {
            (Some(&(colour, _)), None) => Some(colour),
            _ => None,
        }
    }

    /// What the game waits for.
    pub fn next(&self) -> Next {
        self.game().next()
    }

    /// The rolls of the turn not used yet (see [`Board::unused_rolls`]).
    pub fn unused_rolls(&self) -> Vec<Die> {
        self.board.unused_rolls()
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
        match self.player(self.next().mover()?)? {
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
    /// `roll` gives, or plays the move the [`STAND_IN`] level chooses (a
    /// choice the person had begun is dropped).
    pub fn stand_in(&mut self, roll: impl FnOnce() -> Die) -> Result<Note, FlowError> {
        let before = self.note;
        let (seat, note) = match self.game().next() {
            Next::Roll { seat, .. } => (seat, self.roll_as(roll(), true)?),
            Next::Move { seat } => (seat, self.play_bot(STAND_IN)?),
            Next::Won { .. } => return Err(FlowError::GameOver),
        };
        Ok(self.timed_out(seat, before, note))
    }

    /// The computer acted for the person of `seat`, whose time ran out:
    /// the act's `note`, unless it says nothing of its own (the news
    /// `before` it stood), then that their time ran out; and they are
    /// told so at their next roll. (Played again from a record too, which
    /// keeps only that the computer acted.)
    fn timed_out(&mut self, seat: Colour, before: Note, note: Note) -> Note {
        if note == Note::None || note == before {
            self.note = Note::TimedOut { seat };
        }
        self.ran_out = self.ran_out.with(seat);
        self.note
    }

    /// Whether a person is to roll whose time ran out at their last turn
    /// (and who has not rolled since).
    pub fn ran_out(&self) -> bool {
        matches!(self.game().next(), Next::Roll { seat, .. } if self.ran_out.contains(seat))
            && self.computer_to_act().is_none()
    }

    fn roll_as(&mut self, die: Die, by_computer: bool) -> Result<Note, FlowError> {
        let seat = match self.game().next() {
            Next::Roll { seat, .. } => seat,
            Next::Move { .. } => return Err(FlowError::MoveDue),
            Next::Won { .. } => return Err(FlowError::GameOver),
        };
        let first_of_turn = self.board.unused_rolls().is_empty();
        let rolled = self.board.roll(die)?;
        if !by_computer {
            self.ran_out = self.ran_out.without(seat);
        }
        self.keep(Step::Roll(die, by_computer));
        self.clock.restart();
        self.last_roll = Some(die);
        self.fairness.record(Roll {
            seat,
            die,
            by_computer,
        });
        let note = match rolled {
            Rolled::Move => Note::None,
            Rolled::Again => Note::RollAgain,
            Rolled::TryAgain { attempt } => Note::TryAgain { attempt },
            Rolled::TurnLost => Note::turn_lost(
                seat,
                first_of_turn.then_some(die),
                self.fairness
                    .history()
                    .iter()
                    .rev()
                    .map(|r| (r.seat, r.die)),
            ),
        };
        Ok(self.tell(note, by_computer))
    }

    /// The board, for what it shows besides the pieces.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Every piece on the board (see [`Board::pieces`]).
    pub fn pieces(&self) -> Vec<PieceView> {
        self.board.pieces()
    }

    /// The squares the board marks (see [`Board::targets`]).
    pub fn targets(&self) -> Vec<Spot> {
        self.board.targets()
    }

    /// What the player is asked about the piece they tapped, if anything.
    pub fn choice(&self) -> Option<(PieceId, Choice)> {
        self.board.choice()
    }

    /// Drops the question about the tapped piece; another can be tapped.
    pub fn cancel_choice(&mut self) {
        self.board.cancel_choice();
    }

    /// Answers the question with its option `index`: moves the piece, or
    /// asks the next question (who receives the piece a plan captures).
    pub fn choose(&mut self, index: usize) -> Result<Outcome, FlowError> {
        let tap = self.board.choose(index)?;
        self.take(tap)
    }

    /// Moves `piece`, which must be able to move, or asks how when it can
    /// move in several ways.
    pub fn play_piece(&mut self, piece: PieceId) -> Result<Outcome, FlowError> {
        let tap = self.board.tap_piece(piece)?;
        self.take(tap)
    }

    /// Moves the piece that may end its move on `spot` (the tapped piece's,
    /// while one is asked about), or asks how. Refused when no piece, or
    /// more than one, may end there: then the piece is to be tapped.
    pub fn play_to(&mut self, spot: Spot) -> Result<Outcome, FlowError> {
        let tap = self.board.tap_to(spot)?;
        self.take(tap)
    }

    /// Plays the move a tap chose, or says the player is asked.
    fn take(&mut self, tap: Tap) -> Result<Outcome, FlowError> {
        match tap {
            Tap::Play(mv) => self.play(mv, false).map(Outcome::Moved),
            Tap::Asked => Ok(Outcome::Asked),
        }
    }

    /// Lets the computer move, when it is the computer's move.
    pub fn play_computer(&mut self) -> Result<Note, FlowError> {
        let level = self.computer_to_act().ok_or(FlowError::Illegal)?;
        self.play_bot(level)
    }

    /// Plays the move the computer chooses at `level`.
    fn play_bot(&mut self, level: Level) -> Result<Note, FlowError> {
        self.decisions += 1;
        let mv = bot::choose(self.game(), level, self.decisions).ok_or(FlowError::RollDue)?;
        self.play(mv, true)
    }

    /// Plays `mv`, chosen by the computer or by a person.
    fn play(&mut self, mv: Move, by_computer: bool) -> Result<Note, FlowError> {
        let before = *self.game();
        let played = self.board.play(mv)?;
        self.keep(Step::Move(mv, by_computer));
        self.clock.restart();
        let rolled_six = self.last_roll.is_some_and(Die::is_six);
        // The player who moved: the piece's colour under the classic
        // rules, the seat in turn under the Matfyz rules.
        let by = match mv {
            Move::Classic(m) => m.colour(),
            Move::Matfyz(run) => run.seat(),
        };
        // The person acts again: their time out is past news.
        if !by_computer {
            self.ran_out = self.ran_out.without(by);
        }
        let note = match played.captured {
            _ if played.won => Note::Won { winner: by },
            Some(capture) => Note::capture(self.game(), capture, by),
            None if rolled_six => Note::RollAgain,
            None => Note::unused(&before, self.game()).unwrap_or(Note::None),
        };
        Ok(self.tell(note, by_computer))
    }

    /// Adds `step` to the record, if the game keeps one.
    fn keep(&mut self, step: Step) {
        if let Some(record) = &mut self.record {
            record.steps.push(step);
        }
    }

    /// How to play this game again ([`OfflineGame::replay`]); none for a
    /// game resumed from a position.
    pub fn record(&self) -> Option<&Record> {
        self.record.as_ref()
    }

    /// Says `note` of what just happened. A roll or move of the computer
    /// (for its seat, or for a person out of time) with nothing to say
    /// leaves the last news standing (a capture, who begins): at the
    /// computer's pace it would be gone before anyone read it. A person's
    /// own action always speaks for itself. (A lost turn is not kept: it
    /// is of the roll just made, which the next person's die replaces.)
    fn tell(&mut self, note: Note, by_computer: bool) -> Note {
        if !(by_computer && note == Note::None && self.note.is_news()) {
            self.note = note;
        }
        self.note
    }

    /// The seated colours from first to last place: the winner first, then
    /// by pieces home, then by how far the pieces have come.
    pub fn placings(&self) -> Vec<Colour> {
        let winner = match self.game().next() {
            Next::Won { winner } => Some(winner),
            _ => None,
        };
        // Nobody leaves a game on this device.
        super::board::ranking(self.game(), &self.pieces(), winner, |_| false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::matfyz;
    use crate::rules::{HouseRules, Place, classic};

    fn die(n: u8) -> Die {
        Die::new(n).unwrap()
    }

    /// The die of a classic game's opening, which red begins without one.
    fn no_opening() -> Die {
        panic!("a classic game at one device begins with red, unrolled")
    }

    /// A die that shows `faces` over and over.
    fn dice(faces: &[u8]) -> impl FnMut() -> Die + '_ {
        let mut next = faces.iter().cycle();
        move || die(*next.next().unwrap())
    }

    fn human(name: &str) -> Player {
        Player::Human { name: name.into() }
    }

    fn computer(level: Level) -> Player {
        Player::Computer { level }
    }

    /// A new game of `players` under `rules` and `timer`, whose opening
    /// `roll` rolls.
    fn new_game(
        players: Vec<Player>,
        rules: RuleSet,
        timer: TurnTimer,
        roll: impl FnMut() -> Die,
    ) -> OfflineGame {
        let setup = Setup {
            players,
            rules,
            timer,
        };
        OfflineGame::new(setup, roll).unwrap()
    }

    fn piece_on(game: &OfflineGame, spot: Spot) -> PieceView {
        game.pieces().into_iter().find(|p| p.spot == spot).unwrap()
    }

    fn spot_of(game: &OfflineGame, id: PieceId) -> Spot {
        game.pieces().into_iter().find(|p| p.id == id).unwrap().spot
    }

    fn two_humans() -> OfflineGame {
        new_game(
            vec![human("Anna"), human("Boris")],
            RuleSet::Classic(HouseRules::default()),
            TurnTimer::None,
            no_opening,
        )
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
            assert_eq!(
                OfflineGame::new(setup, no_opening).err(),
                Some(BadSetup::Players(n))
            );
        }
        let game = two_humans();
        let colours: Vec<Colour> = game.players().iter().map(|(c, _)| *c).collect();
        assert_eq!(colours, [Colour::Red, Colour::Green]);
    }

    #[test]
    fn the_croatian_preset_forbids_jumping_in_the_home_row() {
        let game = new_game(
            vec![human("Ana"), human("Ivo")],
            RuleSet::Classic(HouseRules::CROATIAN),
            TurnTimer::None,
            dice(&[6, 1, 1]),
        );
        assert_eq!(game.game().rules(), RuleSet::Classic(HouseRules::CROATIAN));
    }

    /// Plays the step `game` waits for: a roll of `roll`, the computer's
    /// move, or a person's tap on the first piece that may move, each
    /// question answered with the option `answer` picks. Whether the game
    /// went on (not once it is won).
    fn play_step(
        game: &mut OfflineGame,
        roll: impl FnOnce() -> Die,
        mut answer: impl FnMut(&Choice) -> usize,
    ) -> bool {
        match game.next() {
            Next::Won { .. } => return false,
            Next::Roll { .. } => {
                game.roll(roll()).unwrap();
            }
            Next::Move { .. } if game.computer_to_act().is_some() => {
                game.play_computer().unwrap();
            }
            Next::Move { .. } => {
                let piece = game.pieces().into_iter().find(|p| p.movable).unwrap();
                let mut outcome = game.play_piece(piece.id).unwrap();
                while outcome == Outcome::Asked {
                    let (_, choice) = game.choice().unwrap();
                    outcome = game.choose(answer(&choice)).unwrap();
                }
            }
        }
        true
    }

    /// What a player sees of `game`.
    fn seen(game: &OfflineGame) -> impl PartialEq + std::fmt::Debug {
        (
            game.pieces(),
            game.next(),
            game.note(),
            game.unused_rolls(),
            game.fairness().clone(),
            game.placings(),
        )
    }

    #[test]
    fn a_record_plays_the_same_game_again() {
        // The Croatian opening rolls for who begins, Matfyz asks questions
        // and runs several rolls; a person's moves and the computer's mix.
        let rule_sets = [RuleSet::Classic(HouseRules::CROATIAN), RuleSet::Matfyz];
        for (k, rules) in rule_sets.into_iter().enumerate() {
            let players = vec![human("Ana"), computer(Level::Hard), computer(Level::Easy)];
            let mut faces = dice(&[6, 3, 6, 6, 2, 5, 1, 4, 6, 2, 3]);
            let mut game = new_game(players, rules, TurnTimer::Seconds20, &mut faces);
            for step in 0..400 {
                // Each question is answered with its first option.
                if !play_step(&mut game, &mut faces, |_| 0) {
                    break;
                }
                if step % 37 == k {
                    let again = OfflineGame::replay(game.record().unwrap().clone()).unwrap();
                    assert_eq!(seen(&again), seen(&game), "{rules:?}, step {step}");
                    assert_eq!(again.record(), game.record());
                    // The computer's next decision gets the same seed.
                    assert_eq!(again.decisions, game.decisions);
                }
            }
        }
    }

    #[test]
    fn a_record_that_is_not_a_game_does_not_play() {
        let mut game = two_humans();
        game.roll(Die::SIX).unwrap();
        let mut record = game.record().unwrap().clone();
        // A move before the roll it needs.
        let enter = game.game().legal_moves()[0];
        record.steps.insert(0, Step::Move(enter, false));
        assert_eq!(
            OfflineGame::replay(record).err(),
            Some(ReplayError::Step(0))
        );
        // An opening roll too many.
        let mut record = game.record().unwrap().clone();
        record.opening.push(Die::SIX);
        assert_eq!(
            OfflineGame::replay(record).err(),
            Some(ReplayError::Opening)
        );
        // A game resumed from a position keeps none.
        let position = at(
            2,
            Colour::Red,
            &[
                (Colour::Red, ["T3", "B", "B", "B"]),
                (Colour::Green, ["T5", "B", "B", "B"]),
            ],
        );
        assert!(position.record().is_none());
    }

    #[test]
    fn the_openings_rolls_are_marked_as_the_computers_only_in_its_seats() {
        let game = new_game(
            vec![human("Ana"), computer(Level::Easy)],
            RuleSet::Matfyz,
            TurnTimer::None,
            dice(&[2, 5]),
        );
        let marks: Vec<bool> = game
            .fairness()
            .history()
            .iter()
            .map(|r| r.by_computer)
            .collect();
        assert_eq!(marks, [false, true]);
    }

    #[test]
    fn the_croatian_preset_begins_with_the_first_six_and_matfyz_with_the_highest_roll() {
        let players = || vec![human("Ana"), human("Ivo")];
        // Red misses its three tries, green's first roll is a six.
        let croatian = new_game(
            players(),
            RuleSet::Classic(HouseRules::CROATIAN),
            TurnTimer::None,
            dice(&[1, 2, 3, 6]),
        );
        // Red 2, green 5.
        let matfyz = new_game(players(), RuleSet::Matfyz, TurnTimer::None, dice(&[2, 5]));
        for (game, rolls) in [(croatian, 4), (matfyz, 2)] {
            assert_eq!(
                game.note(),
                Note::Begins {
                    seat: Colour::Green
                }
            );
            assert!(matches!(
                game.next(),
                Next::Roll {
                    seat: Colour::Green,
                    ..
                }
            ));
            assert_eq!(
                game.fairness().history().len(),
                rolls,
                "the opening's rolls count"
            );
            assert_eq!(game.last_roll, None, "the die waits for the first turn");
        }
        // The classic rules roll no opening: red begins.
        let classic = two_humans();
        assert_eq!(classic.note(), Note::None);
        assert!(classic.fairness().history().is_empty());
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
        assert_eq!(game.last_roll, None);
        game.roll(die(3)).unwrap();
        assert_eq!(game.last_roll, Some(die(3)));
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
        assert_eq!(game.roll(die(2)), Ok(Note::NoSix { seat: Colour::Red }));
        assert_eq!(
            game.next(),
            Next::Roll {
                seat: Colour::Green,
                attempt: 1
            }
        );
    }

    #[test]
    fn a_six_offers_every_base_piece_and_a_tap_on_any_brings_one_out() {
        let mut game = two_humans();
        game.roll(Die::SIX).unwrap();
        let movable: Vec<PieceView> = game.pieces().into_iter().filter(|p| p.movable).collect();
        assert_eq!(movable.len(), 4, "a tap on any of them is taken");
        assert!(movable.iter().all(|p| p.spot == Spot::Base(Colour::Red)));
        assert_eq!(game.targets(), [Spot::Track(0)]);
        assert_eq!(
            game.play_piece(movable[0].id),
            Ok(Outcome::Moved(Note::RollAgain))
        );
        let out = |game: &OfflineGame| {
            game.pieces()
                .into_iter()
                .filter(|p| p.spot == Spot::Track(0))
                .count()
        };
        assert_eq!(out(&game), 1, "one piece comes out");
        // They look alike: the one on the base's last cell comes out, as
        // on every phone of an online game.
        let last_cell = Spot::Base(Colour::Red).cell(3);
        let last = movable.iter().find(|p| p.cell == last_cell).unwrap();
        assert_ne!(last.id, movable[0].id);
        assert_eq!(spot_of(&game, last.id), Spot::Track(0));
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
        let red = piece_on(&game, Spot::Track(3));
        assert!(red.movable);
        assert_eq!(game.targets(), [Spot::Track(5)]);
        assert_eq!(
            game.play_piece(red.id),
            Ok(Outcome::Moved(Note::Captured {
                piece: Colour::Green,
                by: Colour::Red
            }))
        );
        let green: Vec<PieceView> = game
            .pieces()
            .into_iter()
            .filter(|p| p.id.colour == Colour::Green)
            .collect();
        // The captured piece keeps its identity (its slot) and its base cell.
        let base = Spot::Base(Colour::Green);
        assert_eq!(
            green.iter().map(|p| p.spot).collect::<Vec<_>>(),
            [base, base, Spot::Track(22), base]
        );
        assert_eq!(green[0].cell, base.cell(0));
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
        let blue = piece_on(&game, Spot::Track(8));
        assert_eq!(game.targets(), [Spot::Home(Colour::Blue, 4)]);
        assert_eq!(
            game.play_piece(blue.id),
            Ok(Outcome::Moved(Note::Won {
                winner: Colour::Blue
            }))
        );
        assert_eq!(
            game.next(),
            Next::Won {
                winner: Colour::Blue
            }
        );
        assert_eq!(game.placings(), [Colour::Blue, Colour::Red, Colour::Green]);
        assert!(game.pieces().iter().all(|p| !p.movable));
    }

    #[test]
    fn the_computer_acts_only_on_its_own_turn() {
        let mut game = new_game(
            vec![human("Anna"), computer(Level::Easy)],
            RuleSet::Classic(HouseRules::default()),
            TurnTimer::None,
            no_opening,
        );
        assert_eq!(game.computer_to_act(), None);
        assert!(game.play_computer().is_err());
        for _ in 0..3 {
            game.roll(die(1)).unwrap();
        }
        assert_eq!(game.computer_to_act(), Some(Level::Easy));
        game.roll(Die::SIX).unwrap();
        assert_eq!(game.play_computer(), Ok(Note::RollAgain));
    }

    #[test]
    fn the_computers_plain_roll_and_move_leave_the_last_news_standing() {
        let mut game = at(
            2,
            Colour::Red,
            &[
                (Colour::Red, ["T5", "B", "B", "B"]),
                (Colour::Green, ["T7", "T30", "B", "B"]),
            ],
        );
        game.players[1].1 = computer(Level::Easy);
        game.roll(die(2)).unwrap();
        game.play_piece(piece_on(&game, Spot::Track(5)).id).unwrap();
        let captured = Note::Captured {
            piece: Colour::Green,
            by: Colour::Red,
        };
        assert_eq!(game.note(), captured);
        // The computer's three moves its one piece out: nothing to say.
        assert_eq!(game.computer_to_act(), Some(Level::Easy));
        game.roll(die(3)).unwrap();
        assert_eq!(game.note(), captured);
        game.play_computer().unwrap();
        assert_eq!(game.note(), captured);
        // A person's roll speaks for itself.
        game.roll(die(3)).unwrap();
        assert_eq!(game.note(), Note::None);
    }

    fn timed(timer: TurnTimer) -> OfflineGame {
        new_game(
            vec![human("Anna"), human("Boris")],
            RuleSet::Classic(HouseRules::default()),
            timer,
            no_opening,
        )
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
        // Said, as nothing else is to say of the roll.
        let timed_out = Note::TimedOut { seat: Colour::Red };
        assert_eq!(game.stand_in(|| Die::SIX), Ok(timed_out));
        assert!(game.fairness().history()[0].by_computer);
        // The next decision has the full time again.
        assert_eq!(game.time_left(), Some(10));
        assert_eq!(game.next(), Next::Move { seat: Colour::Red });
        // The six moved: its roll again is the news.
        let moved = game.stand_in(|| unreachable!("no roll is due"));
        assert_eq!(moved, Ok(Note::RollAgain));
        assert!(game.pieces().iter().any(|p| p.spot == Spot::Track(0)));
    }

    #[test]
    fn a_person_whose_time_ran_out_is_told_at_their_next_roll_until_they_roll() {
        let mut game = timed(TurnTimer::Seconds10);
        assert!(!game.ran_out());
        // Every piece in base: a 2 leaves red a second try for a six (the
        // news of the note, which no longer says the time ran out).
        let again = Note::TryAgain { attempt: 2 };
        assert_eq!(game.stand_in(|| die(2)), Ok(again));
        assert!(matches!(
            game.next(),
            Next::Roll {
                seat: Colour::Red,
                ..
            }
        ));
        assert!(game.ran_out());
        game.roll(die(3)).unwrap();
        assert!(matches!(
            game.next(),
            Next::Roll {
                seat: Colour::Red,
                ..
            }
        ));
        assert!(!game.ran_out(), "rolled by the person");
        // A six the computer rolled for red brings a piece out: a move is
        // due, not a roll.
        game.stand_in(|| Die::SIX).unwrap();
        assert!(!game.ran_out());
        // Red moves it by hand and rolls again for the six: told nothing
        // of a time out it has acted since.
        let piece = game.pieces().into_iter().find(|p| p.movable).unwrap();
        game.play_piece(piece.id).unwrap();
        assert!(matches!(
            game.next(),
            Next::Roll {
                seat: Colour::Red,
                ..
            }
        ));
        assert!(!game.ran_out(), "moved by the person");
    }

    /// A game with a turn timer whose note is older news: a capture.
    fn after_news() -> OfflineGame {
        let mut game = timed(TurnTimer::Seconds10);
        game.note = Note::Captured {
            piece: Colour::Green,
            by: Colour::Red,
        };
        game
    }

    #[test]
    fn a_stand_in_with_nothing_to_say_says_the_time_ran_out_over_older_news() {
        let mut game = after_news();
        let timed_out = Note::TimedOut { seat: Colour::Red };
        assert_eq!(game.stand_in(|| Die::SIX), Ok(timed_out));
    }

    /// A game played again from its record (after the app was killed)
    /// says the time ran out as it did, and the person is told at their
    /// next roll.
    #[test]
    fn a_time_out_is_said_again_by_the_game_played_from_its_record() {
        let mut game = after_news();
        game.stand_in(|| die(2)).unwrap();
        let again = OfflineGame::replay(game.record().unwrap().clone()).unwrap();
        assert_eq!(again.note(), game.note());
        assert_eq!(again.ran_out(), game.ran_out());
        assert_eq!(again.pieces(), game.pieces());
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
        let mut game = new_game(
            vec![human("Anna"), computer(Level::Easy)],
            RuleSet::Classic(HouseRules::default()),
            TurnTimer::Seconds10,
            no_opening,
        );
        for _ in 0..3 {
            game.roll(die(1)).unwrap();
        }
        assert_eq!(game.computer_to_act(), Some(Level::Easy));
        assert_eq!(game.time_left(), None);
        assert_eq!(game.tick(), Tick::Off);
    }

    #[test]
    fn a_whole_game_against_the_computer_ends_with_a_winner() {
        let mut game = new_game(
            vec![
                computer(Level::Easy),
                computer(Level::Medium),
                computer(Level::Hard),
                computer(Level::Medium),
            ],
            RuleSet::Classic(HouseRules::default()),
            TurnTimer::None,
            no_opening,
        );
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

    /// The Matfyz position of docs/matfyz.md: red, blue and green people,
    /// red to roll; red holds red and green, so it may move the blue piece
    /// on T7 and the yellow ones on T10 and T30.
    fn matfyz_example() -> OfflineGame {
        use crate::rules::matfyz as rules_matfyz;
        let layout = matfyz::docs_example(rules_matfyz::Rolls::default());
        let position = rules_matfyz::Position::new(&layout).unwrap();
        let game = Game::Matfyz(rules_matfyz::Game::new(position));
        let players = vec![human("Anna"), human("Boris"), human("Cyril")];
        OfflineGame::resume(game, players).unwrap()
    }

    #[test]
    fn a_matfyz_run_that_leaves_a_roll_no_piece_can_use_says_it_is_lost() {
        let game = crate::app::board::tests::red_near_home_with_six_and_four();
        let players = vec![human("Anna"), human("Boris")];
        let mut game = OfflineGame::resume(game, players).unwrap();
        let home = (game.game().legal_moves().into_iter())
            .find(|mv| matches!(mv, Move::Matfyz(run) if run.to() == Place::Home(1)))
            .unwrap();
        let lost = Note::Unused {
            seat: Colour::Red,
            die: Some(Die::new(4).unwrap()),
        };
        assert_eq!(game.play(home, false), Ok(lost));
        assert_eq!(game.note(), lost);
    }

    /// Matfyz players with as many pieces home are placed by how far into
    /// their homes the pieces went.
    #[test]
    fn matfyz_players_as_many_pieces_home_are_placed_by_how_deep() {
        use crate::rules::matfyz as rules_matfyz;
        use Colour::{Blue, Green, Red, Yellow};
        let layout = rules_matfyz::Layout {
            seats: Seats::for_players(3).unwrap(),
            turn: Red,
            bases: vec![
                (Red, vec![Green]),
                (Blue, vec![Red, Green]),
                (Green, vec![Red, Blue, Green, Yellow]),
            ],
            homes: vec![
                (Red, [Some(Red), None, None, None]),
                (Blue, [None, None, None, Some(Blue)]),
                (Green, [None; 4]),
            ],
            track: vec![(7, Blue), (10, Yellow), (30, Yellow)],
            rolls: rules_matfyz::Rolls::default(),
            done: Vec::new(),
        };
        let position = rules_matfyz::Position::new(&layout).unwrap();
        let game = Game::Matfyz(rules_matfyz::Game::new(position));
        let players = vec![human("Anna"), human("Boris"), human("Cyril")];
        let game = OfflineGame::resume(game, players).unwrap();
        assert_eq!(game.placings(), [Blue, Red, Green]);
    }

    #[test]
    fn a_matfyz_game_starts_with_one_piece_of_each_colour_in_every_base() {
        let game = new_game(
            vec![human("Anna"), human("Boris")],
            RuleSet::Matfyz,
            TurnTimer::None,
            dice(&[6, 1, 1]),
        );
        let pieces = game.pieces();
        assert_eq!(pieces.len(), 8, "a piece of each colour per player");
        for seat in [Colour::Red, Colour::Green] {
            let mut held: Vec<Colour> = pieces
                .iter()
                .filter(|p| p.spot == Spot::Base(seat))
                .map(|p| p.id.colour)
                .collect();
            held.sort();
            assert_eq!(held, Colour::ALL, "{seat}");
        }
        // Each colour takes its own cell of a base, whoever's base it is.
        let yellow = pieces
            .iter()
            .find(|p| p.id.colour == Colour::Yellow && p.spot == Spot::Base(Colour::Green))
            .unwrap();
        assert_eq!(yellow.cell, Spot::Base(Colour::Green).cell(3));
    }

    #[test]
    fn sixes_are_kept_and_shown_until_the_rolling_ends() {
        let mut game = matfyz_example();
        assert_eq!(game.roll(Die::SIX), Ok(Note::RollAgain));
        assert_eq!(game.roll(Die::SIX), Ok(Note::RollAgain));
        assert_eq!(game.unused_rolls(), [Die::SIX, Die::SIX]);
        assert_eq!(game.roll(die(3)), Ok(Note::None));
        assert_eq!(game.unused_rolls(), [Die::SIX, Die::SIX, die(3)]);
        assert!(two_humans().unused_rolls().is_empty());
    }

    #[test]
    fn a_piece_with_several_plans_asks_how_far_it_goes() {
        let mut game = matfyz_example();
        game.roll(Die::SIX).unwrap();
        game.roll(die(3)).unwrap();
        let yellow = piece_on(&game, Spot::Track(10));
        assert_eq!(game.play_piece(yellow.id), Ok(Outcome::Asked));
        let Some((piece, Choice::Plan(plans))) = game.choice() else {
            panic!("no plan asked: {:?}", game.choice());
        };
        assert_eq!(piece, yellow.id);
        let ends: Vec<Spot> = plans.iter().map(|p| p.end).collect();
        assert_eq!(ends, [Spot::Track(16), Spot::Track(19)]);
        assert_eq!(plans[0].rolls, [Die::SIX]);
        assert_eq!(plans[1].rolls, [Die::SIX, die(3)]);
        // Only the tapped piece's ends are marked meanwhile.
        assert_eq!(game.targets(), [Spot::Track(16), Spot::Track(19)]);
        // Stopping after the six leaves the 3 for another piece.
        assert_eq!(game.choose(0), Ok(Outcome::Moved(Note::None)));
        assert_eq!(spot_of(&game, yellow.id), Spot::Track(16));
        assert_eq!(game.unused_rolls(), [die(3)]);
        assert_eq!(game.next(), Next::Move { seat: Colour::Red });
        assert_eq!(game.choice(), None);
    }

    #[test]
    fn tapping_a_marked_square_chooses_the_plan_that_ends_there() {
        let mut game = matfyz_example();
        game.roll(Die::SIX).unwrap();
        game.roll(die(3)).unwrap();
        // T16 is reached by the blue piece (6 + 3) and the yellow one (6).
        assert_eq!(game.play_to(Spot::Track(16)), Err(FlowError::Illegal));
        let yellow = piece_on(&game, Spot::Track(10));
        game.play_piece(yellow.id).unwrap();
        assert_eq!(
            game.play_to(Spot::Track(19)),
            Ok(Outcome::Moved(Note::None))
        );
        assert_eq!(spot_of(&game, yellow.id), Spot::Track(19));
        assert_eq!(
            game.next(),
            Next::Roll {
                seat: Colour::Blue,
                attempt: 1
            }
        );
    }

    #[test]
    fn a_choice_can_be_dropped_and_another_piece_tapped() {
        let mut game = matfyz_example();
        game.roll(Die::SIX).unwrap();
        game.roll(die(3)).unwrap();
        let yellow = piece_on(&game, Spot::Track(10));
        game.play_piece(yellow.id).unwrap();
        // Only the piece asked about is marked meanwhile.
        let marked: Vec<PieceId> = game
            .pieces()
            .iter()
            .filter(|p| p.movable)
            .map(|p| p.id)
            .collect();
        assert_eq!(marked, [yellow.id]);
        assert_eq!(game.choose(7), Err(FlowError::Illegal));
        assert!(game.choice().is_some(), "a wrong answer keeps the question");
        game.cancel_choice();
        assert_eq!(game.choice(), None);
        assert!(game.targets().contains(&Spot::Track(36)));
        let other = piece_on(&game, Spot::Track(30));
        assert_eq!(game.play_piece(other.id), Ok(Outcome::Asked));
        assert_eq!(game.choice().map(|(piece, _)| piece), Some(other.id));
    }

    #[test]
    fn a_capture_asks_who_receives_the_piece_and_puts_it_into_that_base() {
        let mut game = matfyz_example();
        game.roll(die(3)).unwrap();
        let blue = piece_on(&game, Spot::Track(7));
        let yellow = piece_on(&game, Spot::Track(10));
        assert_eq!(game.play_piece(blue.id), Ok(Outcome::Asked));
        // Green holds yellow, so only red or blue may receive it.
        assert_eq!(
            game.choice().map(|(_, c)| c),
            Some(Choice::Recipient {
                captured: Colour::Yellow,
                seats: vec![Colour::Red, Colour::Blue]
            })
        );
        assert_eq!(
            game.choose(1),
            Ok(Outcome::Moved(Note::Given {
                piece: Colour::Yellow,
                by: Colour::Red,
                to: Colour::Blue
            }))
        );
        assert_eq!(spot_of(&game, blue.id), Spot::Track(10));
        let captured = game
            .pieces()
            .into_iter()
            .find(|p| p.id == yellow.id)
            .unwrap();
        assert_eq!(captured.spot, Spot::Base(Colour::Blue));
        assert_eq!(captured.cell, Spot::Base(Colour::Blue).cell(3));
    }

    #[test]
    fn a_whole_matfyz_game_with_both_kinds_of_choice_ends_with_a_winner() {
        let mut game = new_game(
            vec![human("Anna"), computer(Level::Medium), human("Cyril")],
            RuleSet::Matfyz,
            TurnTimer::None,
            dice(&[6, 1, 1]),
        );
        let mut dice = super::super::dice::Dice::from_seed([7; 32]);
        let (mut plans, mut recipients) = (0, 0);
        for step in 0..50_000 {
            if let Next::Won { winner } = game.next() {
                assert_eq!(game.placings()[0], winner);
                assert!(
                    plans > 0 && recipients > 0,
                    "{plans} plans, {recipients} recipients"
                );
                return;
            }
            play_step(
                &mut game,
                || dice.roll(),
                |choice| {
                    let last = match choice {
                        Choice::Plan(all) => {
                            plans += 1;
                            all.len() - 1
                        }
                        Choice::Recipient { seats, .. } => {
                            recipients += 1;
                            seats.len() - 1
                        }
                    };
                    // Vary the answers: the longest plan, the last seat.
                    step % 2 * last
                },
            );
        }
        panic!("no winner after 50 000 steps");
    }
}
