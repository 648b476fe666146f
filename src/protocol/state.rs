//! The state a log folds to, and the checks each entry must pass against it.
//! A state is a small `Copy` value, so the log keeps one per entry and can
//! go back to any point when a conflict is resolved.

use super::colours::Colours;
use super::computer::computer_move;
use super::dice::{Link, Reveals, Throw};
use super::digest::Digest;
use super::event::{Act, Auto, Certificate, Change, Entry, Kind, Proof, Signable};
use super::header::{Seat, Setup};
use super::identity::Signature;
use super::log::LogError;
use super::result::{End, GameResult};
use crate::rules::opening::{Opening, OpeningNext};
use crate::rules::{Colour, Die, FlowError, Game, Move, Next};

/// Whether the players `present` other than `gone` may certify `gone`
/// absent (and so let the computer play their seats): they must be at
/// least half of those present, so that a minority cut off from the rest
/// can never declare the majority gone. A phone left alone in a game of
/// three or four players can only wait.
pub fn may_certify(present: Colours, gone: Colours) -> bool {
    let voters = present.difference(gone);
    !voters.is_empty() && 2 * voters.len() >= present.len()
}

/// Who plays a seat now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// The player's phone.
    Player,
    /// The computer, because the player's phone was certified gone; the
    /// player may take the seat back.
    Absent,
    /// The computer, because the player left on purpose.
    Left,
    /// The computer, from the start.
    Computer,
}

/// Who must write the next entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// The phone of this player, signing it.
    Player(Colour),
    /// The computer: any phone, from the reveals of every present player.
    Computer,
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Due {
    /// Roll number `roll` (1-based, counting every roll of the game) for
    /// `seat`, or, with no seat, the draw of the first player.
    Roll {
        roll: u32,
        seat: Option<Colour>,
        by: Actor,
    },
    /// A move by `seat`.
    Move {
        seat: Colour,
        by: Actor,
    },
    Over(End),
}

impl Due {
    /// Who is to roll or move; none once the game is over.
    pub fn actor(&self) -> Option<Actor> {
        match *self {
            Due::Roll { by, .. } | Due::Move { by, .. } => Some(by),
            Due::Over(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Opening(Opening),
    Playing(Game),
    /// With the game as it ended (none if it ended in the opening), which
    /// the phones still show.
    Over(End, Option<Game>),
}

/// The most rolls a player found gone again waits to be voted back
/// ([`State::may_return`]): about half a game of four.
const MAX_RETURN_WAIT: u32 = 256;

/// The step the rules wait for, before asking who plays it.
enum Step {
    Roll(Option<Colour>),
    Move(Colour),
    Over(End),
}

/// The game as the log so far makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    stage: Stage,
    /// Rolls made so far (the opening's included).
    rolls: u32,
    /// By colour; `None` for colours not in play.
    control: [Option<Control>; 4],
    /// Players taking their seat back at the next turn boundary.
    returning: Colours,
    /// By colour: the last link of each player's dice chain seen so far.
    links: [Option<Link>; 4],
    /// The seat in turn, to see turn boundaries.
    turn: Option<Colour>,
    absences: [u16; 4],
    /// By colour: the rolls made when the player was last certified gone.
    gone_at: [u32; 4],
    withheld: [u16; 4],
    due: Due,
}

impl State {
    /// The state before the first entry.
    pub(crate) fn start(setup: &Setup) -> Result<State, LogError> {
        let header = &setup.signed.header;
        let mut control = [None; 4];
        let mut links = [None; 4];
        for colour in setup.seats.iter() {
            control[colour.index()] = Some(match header.seats[colour.index()] {
                Some(Seat::Player { commitment, .. }) => {
                    links[colour.index()] = Some(Link {
                        roll: 0,
                        value: commitment,
                    });
                    Control::Player
                }
                _ => Control::Computer,
            });
        }
        let mut state = State {
            stage: Stage::Opening(Opening::new(header.first, setup.seats)),
            rolls: 0,
            control,
            returning: Colours::NONE,
            links,
            turn: None,
            absences: [0; 4],
            gone_at: [0; 4],
            withheld: [0; 4],
            due: Due::Over(End::Abandoned),
        };
        state.settle(setup)?;
        Ok(state)
    }

    pub fn due(&self) -> Due {
        self.due
    }

    /// Who plays `colour`; `None` if it is not in play.
    pub fn control(&self, colour: Colour) -> Option<Control> {
        self.control[colour.index()]
    }

    /// Whether `colour`'s player was certified gone while their own roll
    /// waited for their reveal (which the result records, and the
    /// statistics count as a loss whoever wins).
    pub fn withheld(&self, colour: Colour) -> bool {
        self.withheld[colour.index()] > 0
    }

    /// The players whose phones take part: they reveal for every roll and
    /// act in their own turns.
    pub fn present(&self) -> Colours {
        self.with_control(Control::Player)
    }

    fn with_control(&self, control: Control) -> Colours {
        Colour::ALL
            .into_iter()
            .filter(|c| self.control[c.index()] == Some(control))
            .collect()
    }

    /// Players who will take their seats back at the next turn boundary.
    pub fn returning(&self) -> Colours {
        self.returning
    }

    /// Whether the absent player of `seat` may be voted back yet: after
    /// their first absence at once, after each further one only once the
    /// game has made 8, 16, 32, … rolls without them (at most 256).
    /// Otherwise a phone could come back only to withhold its next reveal,
    /// and stall every turn of the game for the grace period. Phones vote
    /// by it; the log need not check it, as a return takes every present
    /// player's vote.
    pub fn may_return(&self, seat: Colour) -> bool {
        let wait = match u32::from(self.absences[seat.index()]) {
            0 | 1 => 0,
            n => 1u32
                .checked_shl(n + 1)
                .unwrap_or(u32::MAX)
                .min(MAX_RETURN_WAIT),
        };
        self.rolls.saturating_sub(self.gone_at[seat.index()]) >= wait
    }

    pub fn rolls(&self) -> u32 {
        self.rolls
    }

    /// The last link of `colour`'s dice chain the log has seen.
    pub fn link(&self, colour: Colour) -> Option<Link> {
        self.links[colour.index()]
    }

    /// The face the highest opening rolls just tied at, while the tied
    /// players have yet to roll again ([`Opening::tie`]).
    pub fn tie(&self) -> Option<Die> {
        match &self.stage {
            Stage::Opening(opening) => opening.tie(),
            Stage::Playing(_) | Stage::Over(..) => None,
        }
    }

    /// The game once the first player is chosen, and as it ended.
    pub fn game(&self) -> Option<&Game> {
        match &self.stage {
            Stage::Playing(game) | Stage::Over(_, Some(game)) => Some(game),
            Stage::Opening(_) | Stage::Over(_, None) => None,
        }
    }

    /// The state after `kind` as entry `index` after `prev`, or why the
    /// entry is not valid here.
    pub(crate) fn apply(
        &self,
        setup: &Setup,
        index: u32,
        prev: Digest,
        kind: &Kind,
    ) -> Result<State, LogError> {
        let mut next = *self;
        match kind {
            Kind::Player(signed) => {
                let seat = signed.seat;
                let what = Signable::Act {
                    game: setup.game,
                    index,
                    prev,
                    seat,
                    act: &signed.act,
                };
                check_signature(setup, seat, &what, &signed.signature)?;
                self.not_over()?;
                match &signed.act {
                    Act::Roll(reveals) => {
                        self.expect_roll(Actor::Player(seat))?;
                        next.roll(setup, reveals)?;
                    }
                    Act::Move { mv, auto } => {
                        self.expect_move(Actor::Player(seat))?;
                        if *auto {
                            self.check_computer_move(setup, index, seat, *mv)?;
                        }
                        next.play(*mv)?;
                    }
                    Act::Leave => {
                        self.expect_turn(Actor::Player(seat))?;
                        next.leave(seat)?;
                    }
                }
            }
            Kind::Computer(auto) => {
                self.not_over()?;
                match auto {
                    Auto::Roll(reveals) => {
                        self.expect_roll(Actor::Computer)?;
                        next.roll(setup, reveals)?;
                    }
                    Auto::Move(mv) => {
                        let seat = self.expect_move(Actor::Computer)?;
                        self.check_computer_move(setup, index, seat, *mv)?;
                        next.play(*mv)?;
                    }
                }
            }
            Kind::Absent(cert) => {
                self.not_over()?;
                next.certify(setup, index, prev, cert)?;
            }
            Kind::Cheat(proof) => {
                let cheater = self.check_proof(setup, index, prev, proof)?;
                // Out of the game as if they had left on purpose: the
                // computer plays the seat, and the result says so.
                next.leave(cheater)?;
            }
        }
        next.settle(setup)?;
        Ok(next)
    }

    /// Checks a proof of cheating as entry `index` after `prev`: valid when
    /// exposing what it holds gives this very proof, and what it holds is
    /// valid here. Returns the player it puts out.
    fn check_proof(
        &self,
        setup: &Setup,
        index: u32,
        prev: Digest,
        proof: &Proof,
    ) -> Result<Colour, LogError> {
        let here = |kind: Kind| Entry { index, prev, kind };
        let proves = |exposed: Option<Entry>| matches!(exposed.map(|e| e.kind), Some(Kind::Cheat(p)) if *p == *proof);
        match proof {
            Proof::TwoActs { first, second } => {
                let [a, b] = [first, second].map(|signed| here(Kind::Player(signed.clone())));
                if !proves(Entry::expose(&a, &b)) {
                    return Err(LogError::NotAProof);
                }
                // Both acts must be valid here (signed, in the seat's turn,
                // legal), so a proof stands only where the player really
                // had two choices, and never where they were not due.
                self.apply(setup, index, prev, &a.kind)?;
                self.apply(setup, index, prev, &b.kind)?;
                Ok(first.seat)
            }
            Proof::LateVote { certificate, path } => {
                let late = here(Kind::Absent(certificate.clone()));
                if !proves(Entry::expose_late(&late, path)) {
                    return Err(LogError::NotAProof);
                }
                // The certificate must hold here, and the act that ends the
                // path be the voter's own: together, what no honest phone
                // signs.
                self.apply(setup, index, prev, &late.kind)?;
                // And the entry it outranks must be one that can stand
                // here. The path's chain fixes it only up to what its hash
                // covers, which for a certificate leaves out the votes'
                // signatures ([`Entry::sized_hash`]); a proof that puts a
                // player out is worth checking in full.
                let there = path.first().ok_or(LogError::NotAProof)?;
                self.apply(setup, index, prev, &there.kind)?;
                let Some(Entry {
                    index,
                    prev,
                    kind: Kind::Player(signed),
                }) = path.last()
                else {
                    return Err(LogError::NotAProof);
                };
                let what = Signable::Act {
                    game: setup.game,
                    index: *index,
                    prev: *prev,
                    seat: signed.seat,
                    act: &signed.act,
                };
                check_signature(setup, signed.seat, &what, &signed.signature)?;
                Ok(signed.seat)
            }
        }
    }

    fn not_over(&self) -> Result<(), LogError> {
        match self.due {
            Due::Over(_) => Err(LogError::Flow(FlowError::GameOver)),
            _ => Ok(()),
        }
    }

    fn expect_roll(&self, by: Actor) -> Result<(), LogError> {
        match self.due {
            Due::Roll { by: due, .. } if due == by => Ok(()),
            Due::Move { by: due, .. } if due == by => Err(LogError::Flow(FlowError::MoveDue)),
            _ => Err(not_turn(by)),
        }
    }

    /// That `by` is to roll or to move.
    fn expect_turn(&self, by: Actor) -> Result<(), LogError> {
        match self.due.actor() {
            Some(due) if due == by => Ok(()),
            _ => Err(not_turn(by)),
        }
    }

    fn expect_move(&self, by: Actor) -> Result<Colour, LogError> {
        match self.due {
            Due::Move { seat, by: due } if due == by => Ok(seat),
            Due::Roll { by: due, .. } if due == by => Err(LogError::Flow(FlowError::RollDue)),
            _ => Err(not_turn(by)),
        }
    }

    /// Checks that `mv` is the computer's move for `seat` at `index`.
    fn check_computer_move(
        &self,
        setup: &Setup,
        index: u32,
        seat: Colour,
        mv: Move,
    ) -> Result<(), LogError> {
        let game = self.game().ok_or(LogError::Flow(FlowError::RollDue))?;
        let expected = computer_move(setup, game, seat, index);
        if expected != Some(mv) {
            return Err(LogError::NotTheComputersMove);
        }
        Ok(())
    }

    /// Checks the roll's reveals against every present player's chain and
    /// rolls the die they make.
    fn roll(&mut self, setup: &Setup, reveals: &Reveals) -> Result<(), LogError> {
        let roll = self.rolls + 1;
        let present = self.present();
        if present.is_empty() {
            return Err(LogError::NobodyPresent);
        }
        for colour in Colour::ALL {
            let slot = &mut self.links[colour.index()];
            match (present.contains(colour), reveals.get(colour), slot) {
                (true, None, _) => return Err(LogError::MissingReveal(colour)),
                (false, Some(_), _) => return Err(LogError::UnexpectedReveal(colour)),
                (true, Some(reveal), Some(link)) => {
                    if !link.admits(roll, &reveal) {
                        return Err(LogError::RevealMismatch(colour));
                    }
                    *link = Link {
                        roll,
                        value: reveal,
                    };
                }
                (true, Some(_), None) => return Err(LogError::NotAPlayer(colour)),
                (false, None, _) => {}
            }
        }
        let throw = Throw::new(&setup.game, roll, reveals);
        self.rolls = roll;
        match &mut self.stage {
            Stage::Opening(opening) => {
                let drawn = match opening.next() {
                    OpeningNext::Draw => {
                        let players = setup.seats.len() as u32;
                        opening.draw(throw.below(players).into()).map(|_| ())
                    }
                    _ => opening.roll(throw.die()).map(|_| ()),
                };
                drawn.map_err(|_| LogError::Flow(FlowError::MoveDue))
            }
            Stage::Playing(game) => game.roll(throw.die()).map(|_| ()).map_err(LogError::Flow),
            Stage::Over(..) => Err(LogError::Flow(FlowError::GameOver)),
        }
    }

    fn play(&mut self, mv: Move) -> Result<(), LogError> {
        match &mut self.stage {
            Stage::Playing(game) => game.play(mv).map(|_| ()).map_err(LogError::Flow),
            _ => Err(LogError::Flow(FlowError::RollDue)),
        }
    }

    fn leave(&mut self, seat: Colour) -> Result<(), LogError> {
        match self.control(seat) {
            Some(Control::Player | Control::Absent) => {
                self.control[seat.index()] = Some(Control::Left);
                self.returning = self.returning.without(seat);
                Ok(())
            }
            _ => Err(LogError::AlreadyLeft(seat)),
        }
    }

    /// Checks a certificate. That players are gone: they are present,
    /// every other present player voted, and they are at least half of
    /// those present, so that a minority cut off from the rest can never
    /// declare the majority gone. That a player is back: they are absent
    /// (and not coming back already), and they and every present player
    /// voted; they take the seat back at the next turn boundary.
    fn certify(
        &mut self,
        setup: &Setup,
        index: u32,
        prev: Digest,
        cert: &Certificate,
    ) -> Result<(), LogError> {
        let present = self.present();
        let voters = cert.change.voters(present);
        match cert.change {
            Change::Gone(gone) => {
                if gone.is_empty() || !gone.is_subset(present) {
                    return Err(LogError::GoneNotPresent(gone));
                }
                if !may_certify(present, gone) {
                    return Err(LogError::TooFewVoters { voters, present });
                }
            }
            Change::Back(seat) => {
                if self.control(seat) != Some(Control::Absent) || self.returning.contains(seat) {
                    return Err(LogError::NotAbsent(seat));
                }
            }
        }
        let signed: Vec<Colour> = cert.votes.iter().map(|&(c, _)| c).collect();
        if !signed.iter().copied().eq(voters.iter()) {
            return Err(LogError::WrongVoters { voters, signed });
        }
        let what = Signable::Vote {
            game: setup.game,
            index,
            prev,
            change: cert.change,
        };
        for (voter, signature) in &cert.votes {
            check_signature(setup, *voter, &what, signature)?;
        }
        match cert.change {
            Change::Gone(gone) => {
                for colour in gone.iter() {
                    self.control[colour.index()] = Some(Control::Absent);
                    self.absences[colour.index()] = self.absences[colour.index()].saturating_add(1);
                    self.gone_at[colour.index()] = self.rolls;
                    if matches!(self.due, Due::Roll { by: Actor::Player(roller), .. } if roller == colour)
                    {
                        self.withheld[colour.index()] =
                            self.withheld[colour.index()].saturating_add(1);
                    }
                }
                self.returning = self.returning.difference(gone);
            }
            Change::Back(seat) => self.returning = self.returning.with(seat),
        }
        Ok(())
    }

    /// Moves on to what the game waits for next: starts the game once the
    /// first player is chosen, ends it, and hands seats back to returning
    /// players at a turn boundary.
    fn settle(&mut self, setup: &Setup) -> Result<(), LogError> {
        let header = &setup.signed.header;
        if !matches!(self.stage, Stage::Over(..))
            && setup.players.is_subset(self.with_control(Control::Left))
        {
            self.stage = Stage::Over(End::Abandoned, self.game().copied());
        }
        let step = loop {
            match self.stage {
                Stage::Over(end, _) => break Step::Over(end),
                Stage::Opening(opening) => match opening.next() {
                    OpeningNext::Decided(first) => {
                        let game =
                            Game::new(header.rules, setup.seats, first).ok_or(LogError::NoGame)?;
                        self.stage = Stage::Playing(game);
                    }
                    OpeningNext::Draw => break Step::Roll(None),
                    OpeningNext::Roll(colour) => break Step::Roll(Some(colour)),
                },
                Stage::Playing(game) => match game.next() {
                    Next::Won { winner } => self.stage = Stage::Over(End::Won(winner), Some(game)),
                    Next::Roll { seat, .. } => break Step::Roll(Some(seat)),
                    Next::Move { seat } => break Step::Move(seat),
                },
            }
        };
        let step = match step {
            Step::Roll(_) if self.rolls >= header.rolls => {
                self.stage = Stage::Over(End::OutOfDice, self.game().copied());
                Step::Over(End::OutOfDice)
            }
            step => step,
        };
        let turn = match step {
            Step::Roll(seat) => seat,
            Step::Move(seat) => Some(seat),
            Step::Over(_) => None,
        };
        // A returning player takes the seat back when the turn passes, so
        // that coming back can never change a turn (or a roll) in progress;
        // at once if nobody is present to play on.
        if turn != self.turn || self.present().is_empty() {
            for colour in self.returning.iter() {
                self.control[colour.index()] = Some(Control::Player);
            }
            self.returning = Colours::NONE;
        }
        self.turn = turn;
        self.due = match step {
            Step::Roll(seat) => Due::Roll {
                roll: self.rolls + 1,
                seat,
                by: seat.map_or(Actor::Computer, |s| self.actor(s)),
            },
            Step::Move(seat) => Due::Move {
                seat,
                by: self.actor(seat),
            },
            Step::Over(end) => Due::Over(end),
        };
        Ok(())
    }

    fn actor(&self, seat: Colour) -> Actor {
        match self.control(seat) {
            Some(Control::Player) => Actor::Player(seat),
            _ => Actor::Computer,
        }
    }

    /// The result, once the game is over.
    pub(crate) fn result(&self, setup: &Setup, head: Digest) -> Option<GameResult> {
        let Due::Over(end) = self.due else {
            return None;
        };
        let left = self.with_control(Control::Left);
        let placings = Colour::ALL.map(|c| {
            self.control(c).map(|_| match end {
                _ if left.contains(c) => 3,
                End::Won(winner) if winner == c => 1,
                _ => 2,
            })
        });
        Some(GameResult {
            game: setup.game,
            head,
            end,
            placings,
            left,
            absences: self.absences,
            withheld: self.withheld,
            rolls: self.rolls,
        })
    }
}

/// Checks that the player of `seat` signed `what`: an entry's act or a
/// vote, which the log checks as entries come and a phone as votes come.
pub(super) fn check_signature(
    setup: &Setup,
    seat: Colour,
    what: &Signable,
    signature: &Signature,
) -> Result<(), LogError> {
    let verifier = setup.verifiers[seat.index()]
        .as_ref()
        .ok_or(LogError::NotAPlayer(seat))?;
    if verifier.verify(what, signature) {
        Ok(())
    } else {
        Err(LogError::BadSignature(seat))
    }
}

fn not_turn(by: Actor) -> LogError {
    match by {
        Actor::Player(seat) => LogError::NotYourTurn(seat),
        Actor::Computer => LogError::NotComputersTurn,
    }
}
