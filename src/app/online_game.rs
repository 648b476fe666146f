//! The controller of an online game's board: the replicated log's state
//! ([`Snapshot`]) as the game screen draws it, and this player's taps as
//! the game's [`Action`]s. Plain Rust, tested without a window.
//!
//! The board itself (pieces, taps, the Matfyz questions) is the [`Board`]
//! a game on this device shares; this adds what is online: the state comes
//! from the log, a move goes to the network, and the note is read from
//! how the log changed.

use crate::net::front::Action;
use crate::protocol::{Actor, Colours, Control, Digest, Due, End, may_certify};
use crate::rules::{Capture, Colour, Die, FirstPlayer, Next};

use super::board::{self, Board, Note, PieceId, PieceView, Step, Tap, unused_rolls};
use super::fairness::{Fairness, Roll};
use super::geometry::Spot;
use super::matfyz::Choice;
use super::online::Snapshot;
use super::turn_clock::TurnClock;

/// A phone the others found gone, back in its game ([`OnlineGame::away`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Away {
    /// Found gone again: the phones vote it back once the game made more
    /// rolls without it.
    Held,
    /// The phones are voting it back.
    Coming,
    /// Voted back: it takes its seat when the turn passes.
    Back,
}

/// An online game as this phone shows it.
pub struct OnlineGame {
    snapshot: Snapshot,
    /// The board: the starting position while the first player is
    /// chosen, then the game's.
    board: Board,
    /// What the last update did, for the note below the die.
    note: Note,
    /// The time for the roll or move that is due, counted on the network's
    /// once-a-second ticks (a phone plays for its own player when it runs
    /// out, as every phone agrees; the others show it too, so that a slow
    /// player is told from a stuck phone). It starts again at
    /// every entry of the log, where the phones' own count starts again
    /// (also between two Matfyz runs of one seat, or at others' votes
    /// within a turn), as a game on this device starts it again at every
    /// roll and move.
    clock: TurnClock,
    /// Whether the clock started again since the last tick, at an entry of
    /// the log heard between two of the network's ticks: the phones' own
    /// count starts at the next tick (`protocol::Watch`), which therefore
    /// takes no second off. (Counted from the entry, the clock showed 0:00
    /// a second before the phone played for its player.)
    fresh: bool,
    /// Ticks for which a player the game waits on has been overdue while
    /// the log stood still.
    overdue_for: u32,
    /// Whether the game waits on a silent phone (the tabs count its grace
    /// time), as the last tick said: another player's time is not shown
    /// then, as it may have run out waiting for that phone.
    waiting_on_silent: bool,
    /// Whether the last tick found silent the phone of the other player
    /// whose roll or move is due. If it speaks again with their time run
    /// out here and no entry of theirs, it was restarted (a phone that
    /// kept running would have played for them), and counts their time
    /// anew: so does this one, rather than show it run out while their
    /// phone counts down. (After a Wi-Fi blip the count goes on.)
    actor_silent: bool,
    /// This player's time ran out at their last turn, and they have not
    /// tapped the die since: told at their next turn, as the note that
    /// said so is long gone by then. (The log cannot tell: it marks the
    /// moves played for them, but the phone rolls the rest of a timed-out
    /// turn as its player, and a roll that leaves nothing to move is no
    /// move.)
    ran_out: bool,
    /// The head of the log at which this player tapped the die: until the
    /// log moves on, the roll waits on the others' reveals, and neither the
    /// die nor this player's time is theirs any more (their phone no longer
    /// counts it: `protocol::Waiting::mine`).
    tapped: Option<Digest>,
}

/// Ticks (seconds) a player may stay overdue without the log moving before
/// the game counts as stranded whatever the count of players: the phones
/// here vote within a second or two, so by then a vote the certificate
/// needs is not coming (a voter's phone is gone too, though the game does
/// not wait on it).
const NO_CERTIFICATE: u32 = 15;

impl OnlineGame {
    /// The board of `snapshot`.
    pub fn new(snapshot: Snapshot) -> OnlineGame {
        let timer = snapshot.timer;
        let acting = must_move(&snapshot);
        OnlineGame {
            board: Board::shared(snapshot.shown(), acting),
            snapshot,
            note: Note::None,
            clock: TurnClock::new(timer),
            fresh: true,
            overdue_for: 0,
            waiting_on_silent: false,
            actor_silent: false,
            ran_out: false,
            tapped: None,
        }
    }

    /// The log moved on to `snapshot`: pieces that did not move keep their
    /// identities, the ones that did take the new places; a question the
    /// player was answering is dropped if the game moved on without it.
    pub fn update(&mut self, snapshot: Snapshot) {
        let acting = must_move(&snapshot);
        let before = std::mem::replace(&mut self.snapshot, snapshot);
        // The game shown was not the one the others kept: two sides played
        // apart, and as they met this side's turns since were undone.
        let undone = !(self.snapshot.rolls.starts_with(&before.rolls)
            && self.snapshot.moves.starts_with(&before.moves));
        let rolls = (self.snapshot.rolls.get(before.rolls.len()..)).unwrap_or_default();
        // One move since: the board shows it as played (more are a
        // catch-up, which it matches spot by spot, as the first move after
        // the opening, whose rolls are no game's; so is a game undone).
        let step = match self.snapshot.moves.get(before.moves.len()..) {
            Some(&[moved]) if before.game.is_some() && !undone => Some(Step {
                rolled: rolls.iter().map(|r| r.die).collect(),
                moved,
            }),
            _ => None,
        };
        let captured = self
            .board
            .follow(self.snapshot.shown(), acting, step.as_ref());
        let note = if undone {
            Note::Undone
        } else {
            note(&before, &self.snapshot, captured)
        };
        // The computer took over a player's turn as their time ran out:
        // this player's as their phone counts it (also a turn whose roll
        // left nothing to move), another's as the log's moves say.
        // (Not another's turns in a catch-up, long gone by now.)
        let me = self.snapshot.me;
        let grew = |c: Colour| {
            self.snapshot.timed_out[c.index()] > before.timed_out[c.index()]
                && rolls.iter().all(|r| r.seat == c)
        };
        let timed_out = if self.snapshot.timeouts > before.timeouts {
            Some(me)
        } else {
            Colour::ALL.into_iter().find(|&c| c != me && grew(c))
        };
        // The news stands while the computer's acts (for a seat, or for a
        // player out of time) have nothing else to say, as on this device.
        let news = self.note.is_news();
        // (A move of a timed-out turn this phone counted already: the
        // time-out said stands.)
        let computer = before.due.actor() == Some(Actor::Computer)
            || matches!(before.due, Due::Move { seat, .. } if self.note == Note::TimedOut { seat });
        self.ran_out |= timed_out == Some(me);
        self.note = match (note, timed_out) {
            (Note::None, Some(seat)) => Note::TimedOut { seat },
            (Note::None, None) if news && computer => self.note,
            (note, _) => note,
        };
        self.overdue_for = 0;
        self.waiting_on_silent = false;
        self.actor_silent = false;
        if before.head != self.snapshot.head {
            self.clock.restart();
            self.fresh = true;
        }
    }

    /// A second passed (the network's tick), the game waiting on `silent`
    /// (as [`super::online::Update::Silent`] tells them).
    pub fn tick(&mut self, silent: &[(Colour, u64)]) {
        let fresh = std::mem::take(&mut self.fresh);
        if self.person_due() && !fresh {
            self.clock.tick();
        }
        let actor = match self.snapshot.due.actor() {
            Some(Actor::Player(p)) if p != self.me() => Some(p),
            _ => None,
        };
        let actor_silent = actor.is_some_and(|p| silent.iter().any(|&(c, _)| c == p));
        if self.actor_silent && !actor_silent && self.clock.left() == Some(0) {
            self.clock.restart();
        }
        self.actor_silent = actor_silent;
        self.waiting_on_silent = !silent.is_empty();
        if silent.iter().any(|&(_, left)| left == 0) {
            self.overdue_for += 1;
        } else {
            self.overdue_for = 0;
        }
    }

    /// The seconds left for the roll or move that is due, when the game has
    /// a turn timer and a person's phone plays it: this player's, or
    /// another's while no phone the game waits on is silent.
    pub fn time_left(&self) -> Option<u16> {
        let mine = self.can_roll() || self.must_move();
        // A roll this player tapped waits on the others, not on them.
        let tapped = self.tapped == Some(self.snapshot.head);
        let shown = mine || (self.person_due() && !self.waiting_on_silent && !tapped);
        self.clock.left().filter(|_| shown)
    }

    /// Whether a person's phone plays the roll or move that is due.
    fn person_due(&self) -> bool {
        matches!(self.snapshot.due.actor(), Some(Actor::Player(_)))
    }

    /// What the last update did.
    pub fn note(&self) -> Note {
        self.note
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The board (the starting position while the first player is
    /// chosen).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// This player's colour.
    pub fn me(&self) -> Colour {
        self.snapshot.me
    }

    /// The colour in turn (to roll or move), if the game is on.
    pub fn turn(&self) -> Option<Colour> {
        match self.snapshot.due {
            Due::Roll { seat, .. } => seat,
            Due::Move { seat, .. } => Some(seat),
            Due::Over(_) => None,
        }
    }

    /// How the seats' rolls choose the first player, while they do (the
    /// Croatian first six, the Matfyz highest roll); not a draw, which
    /// nobody rolls for ([`OnlineGame::drawing`]).
    pub fn opening(&self) -> Option<FirstPlayer> {
        let rolled = matches!(
            self.snapshot.first,
            FirstPlayer::FirstSix | FirstPlayer::HighestRoll
        );
        (rolled && self.snapshot.game.is_none() && self.over().is_none())
            .then_some(self.snapshot.first)
    }

    /// Whether the first player is being drawn (a room's default under
    /// the classic rules): nobody is in turn, and nobody can roll.
    pub fn drawing(&self) -> bool {
        matches!(self.snapshot.due, Due::Roll { seat: None, .. })
    }

    /// Whether the game is over with no winner (its dice ran out, or
    /// everyone left): the header then names nobody.
    pub fn unwon(&self) -> bool {
        self.over() == Some(None)
    }

    /// The colour the board's header names: the one in turn, at the end
    /// the winner, and otherwise (the draw of the first player, an end
    /// without a winner, where the header shows no colour) this player's
    /// own.
    pub fn named(&self) -> Colour {
        self.turn().or(self.over().flatten()).unwrap_or(self.me())
    }

    /// Whether the header speaks to this player ("Your turn", "You
    /// win!"): the colour it names is theirs and their phone plays it. Not
    /// while the first player is drawn or after an end without a winner,
    /// when it names their colour only for want of anyone (every phone
    /// would say "your turn", and none can roll).
    pub fn yours(&self) -> bool {
        !self.drawing() && !self.unwon() && self.named() == self.me() && !self.computer(self.me())
    }

    /// The face the die shows, from `fairness` (this game's, which the
    /// screen has already made): while the rolls choose the first player,
    /// every roll as it comes (each seat rolls in turn); then only the
    /// roll of the player in turn.
    pub fn face(&self, fairness: &Fairness) -> Option<Die> {
        match self.snapshot.game {
            None => fairness.history().last().map(|r| r.die),
            Some(_) => self.turn().and_then(|turn| fairness.face(turn)),
        }
    }

    /// Whether this player is to roll after their time ran out at their
    /// last turn (and they have not rolled or moved since).
    pub fn ran_out(&self) -> bool {
        self.ran_out && self.can_roll()
    }

    /// The player tapped the die: the roll to send, if one is theirs.
    pub fn roll(&mut self) -> Option<Action> {
        self.can_roll().then(|| {
            self.ran_out = false;
            self.tapped = Some(self.snapshot.head);
            Action::Roll
        })
    }

    /// Whether this player may tap the die now: their roll is due, and
    /// they have not tapped it already.
    pub fn can_roll(&self) -> bool {
        matches!(self.snapshot.due, Due::Roll { by: Actor::Player(c), .. } if c == self.me())
            && self.tapped != Some(self.snapshot.head)
    }

    /// Whether this player is to move now.
    pub fn must_move(&self) -> bool {
        must_move(&self.snapshot)
    }

    /// Whether the player of `colour` left the game on purpose.
    pub fn left(&self, colour: Colour) -> bool {
        self.snapshot.control[colour.index()] == Some(Control::Left)
    }

    /// Where this phone stands if the others found it gone (it was killed,
    /// or off the Wi-Fi) and the computer plays its seat: held back (found
    /// gone again), coming back (the phones vote it back), or back, taking
    /// the seat when the turn passes. None once the game is over, as no
    /// turn passes.
    pub fn away(&self) -> Option<Away> {
        let me = self.me();
        if self.snapshot.control[me.index()] != Some(Control::Absent)
            || matches!(self.snapshot.due, Due::Over(_))
        {
            None
        } else if self.snapshot.returning.contains(me) {
            Some(Away::Back)
        } else if self.snapshot.held_back {
            Some(Away::Held)
        } else {
            Some(Away::Coming)
        }
    }

    /// Whether the computer plays `colour` now (a computer seat, or a
    /// player who left or whose phone is gone).
    pub fn computer(&self, colour: Colour) -> bool {
        matches!(
            self.snapshot.control[colour.index()],
            Some(Control::Computer | Control::Absent | Control::Left)
        )
    }

    /// Whether the game cannot go on: the phones it waits on are overdue
    /// (`silent` with no time left, as [`super::online::Update::Silent`]
    /// tells them) and the players still here are too few to let the
    /// computer play for them ([`may_certify`]), or have not for
    /// [`NO_CERTIFICATE`] ticks; so only a return, or this player's leave,
    /// ends the wait.
    pub fn stranded(&self, silent: &[(Colour, u64)]) -> bool {
        let overdue: Colours = silent
            .iter()
            .filter(|&&(_, left)| left == 0)
            .map(|&(c, _)| c)
            .collect();
        let present: Colours = Colour::ALL
            .into_iter()
            .filter(|c| self.snapshot.control[c.index()] == Some(Control::Player))
            .collect();
        let uncertified = self.overdue_for >= NO_CERTIFICATE;
        !overdue.is_empty()
            && self.over().is_none()
            && (uncertified || !may_certify(present, overdue))
    }

    /// Whether the statistics count this game as this player's loss
    /// whoever wins it: their phone was certified gone while their own roll
    /// waited for it, the one moment when withholding a reveal could pay
    /// (docs/protocol.md), so an honest phone that died then is marked
    /// too. The result screen says so, or a win there would be a loss
    /// unexplained.
    pub fn counted_as_lost(&self) -> bool {
        let me = self.me();
        self.snapshot.counted
            && self.snapshot.withheld.contains(me)
            && self.snapshot.control[me.index()] != Some(Control::Left)
    }

    /// Whether this player wins the game by leaving it now: every other
    /// player left it before ([`Snapshot::wins_by_forfeit`]), and it is
    /// not over yet.
    pub fn won_if_left(&self) -> bool {
        self.snapshot.wins_by_forfeit() && self.over().is_none()
    }

    /// This player, whom every other player left, leaves too: the game
    /// is over as its log will say once the leave is in (abandoned, won by
    /// forfeit), whether or not this phone hears it (its later updates are
    /// not shown).
    pub fn leave(&mut self) {
        if self.won_if_left() {
            self.snapshot.due = Due::Over(End::Abandoned);
        }
    }

    /// The winner, once the game is over (`Some(None)`: nobody won).
    pub fn over(&self) -> Option<Option<Colour>> {
        matches!(self.snapshot.due, Due::Over(_)).then(|| winner(&self.snapshot))
    }

    /// The seats in the order of the result: the winner, then the players
    /// who stayed, by their pieces home and how far the rest have come,
    /// then those who left on purpose.
    pub fn ranking(&self) -> Vec<Colour> {
        let winner = self.over().flatten();
        board::ranking(&self.snapshot.shown(), &self.pieces(), winner, |c| {
            self.left(c)
        })
    }

    /// The game's rolls, for the die and the fairness view.
    pub fn fairness(&self) -> Fairness {
        Fairness::from_rolls(self.snapshot.rolls.iter().copied().map(Roll::from))
    }

    /// Every piece, with whether this player may tap it now.
    pub fn pieces(&self) -> Vec<PieceView> {
        self.board.pieces()
    }

    /// Where this player's pieces may end their move now: the squares the
    /// board marks.
    pub fn targets(&self) -> Vec<Spot> {
        self.board.targets()
    }

    /// What this player is asked about the piece they tapped, if anything
    /// (under the Matfyz rules: how far it goes, who receives what it
    /// captures).
    pub fn choice(&self) -> Option<(PieceId, Choice)> {
        self.board.choice()
    }

    /// Drops the question about the tapped piece; another can be tapped.
    pub fn cancel_choice(&mut self) {
        self.board.cancel_choice();
    }

    /// This player taps `piece`: the move, if it may move now in one way
    /// (in several, [`OnlineGame::choice`] asks how).
    pub fn tap(&mut self, piece: PieceId) -> Option<Action> {
        let tap = self.board.tap_piece(piece);
        self.act(tap)
    }

    /// This player taps a marked square: the move of the piece that lands
    /// there.
    pub fn tap_to(&mut self, spot: Spot) -> Option<Action> {
        let tap = self.board.tap_to(spot);
        self.act(tap)
    }

    /// This player answers the question with its option `index`: the move,
    /// or none while the next question is asked.
    pub fn choose(&mut self, index: usize) -> Option<Action> {
        let tap = self.board.choose(index);
        self.act(tap)
    }

    /// The action a tap comes to: a move for the network (the player acts
    /// again: their time out is past news), or nothing (refused, or the
    /// player is asked first).
    fn act(&mut self, tap: Result<Tap, crate::rules::FlowError>) -> Option<Action> {
        match tap.ok()? {
            Tap::Play(mv) => {
                self.ran_out = false;
                Some(Action::Move(mv))
            }
            Tap::Asked => None,
        }
    }
}

/// Whether `snapshot`'s log waits on this player's move.
fn must_move(snapshot: &Snapshot) -> bool {
    matches!(snapshot.due, Due::Move { by: Actor::Player(c), .. } if c == snapshot.me)
}

/// Who won the game of `snapshot`, once it is over: the player every
/// other player left wins by forfeit, as the statistics count it, even if
/// the computer brought a leaver's seat home first; otherwise the colour
/// that brought its pieces home, if any.
fn winner(snapshot: &Snapshot) -> Option<Colour> {
    match snapshot.due {
        Due::Over(end) => snapshot.forfeit.or(match end {
            End::Won(colour) => Some(colour),
            End::Abandoned | End::OutOfDice => None,
        }),
        Due::Roll { .. } | Due::Move { .. } => None,
    }
}

/// What happened from `before` to `after`: `captured` is a piece the board
/// saw go into a base.
fn note(before: &Snapshot, after: &Snapshot, captured: Option<Capture>) -> Note {
    if let Some(winner) = winner(after) {
        return Note::Won { winner };
    }
    // A player left, or their phone is gone: the computer plays for them.
    // (Not this player's own seat: they know, and a phone resumed after
    // the others voted it gone learns so in its catch-up.)
    let newly = |control: Control| {
        Colour::ALL.into_iter().find(|&c| {
            c != after.me
                && after.control[c.index()] == Some(control)
                && before.control[c.index()] != Some(control)
        })
    };
    if let Some(seat) = newly(Control::Left) {
        return Note::Left { seat };
    }
    if let Some(seat) = newly(Control::Absent) {
        return Note::Gone { seat };
    }
    // The opening (a draw, or rolls) chose who begins.
    if before.game.is_none()
        && let Some(Next::Roll { seat, .. }) = after.game.map(|g| g.next())
    {
        return Note::Begins { seat };
    }
    // The highest opening rolls tied: their players roll again.
    if let Some(face) = after.tie
        && after.rolls.len() > before.rolls.len()
    {
        return Note::Tie { face };
    }
    // Several seats' turns at once (a catch-up: computer seats' turns come
    // one by one, as the app's phone holds its reveal for each computer
    // roll): no one roll or capture of them is the news, nor whose it was.
    let new_rolls = after.rolls.get(before.rolls.len()..).unwrap_or_default();
    if new_rolls.iter().any(|r| r.seat != new_rolls[0].seat) {
        return Note::None;
    }
    // The computer's turn for a player (a computer seat's, a timed-out or
    // absent player's) comes as its roll and its move together: a piece
    // moved, so it was no lost turn.
    let placed = |game: &crate::rules::Game| {
        let mut spots = board::spots(game);
        spots.sort();
        spots
    };
    let played = matches!(before.due, Due::Roll { seat: Some(seat), .. }
            if new_rolls.iter().all(|r| r.seat == seat))
        && before
            .game
            .zip(after.game)
            .is_some_and(|(b, a)| placed(&b) != placed(&a));
    let mover = match before.due {
        Due::Move { seat, .. } => Some(seat),
        Due::Roll { seat, .. } if played => seat,
        _ => None,
    };
    if let (Some(capture), Some(by), Some(game)) = (captured, mover, &after.game) {
        return Note::capture(game, capture, by);
    }
    // A Matfyz run that left rolls no piece could use.
    if let (Due::Move { .. }, Some(b), Some(a)) = (before.due, &before.game, &after.game)
        && let Some(unused) = Note::unused(b, a)
    {
        return unused;
    }
    let next = after.game.map(|g| g.next());
    let rolled = after.rolls.len() > before.rolls.len();
    match (after.rolls.last(), next) {
        (Some(last), Some(Next::Roll { seat, attempt })) if rolled && seat == last.seat => {
            if attempt > 1 {
                Note::TryAgain { attempt }
            } else {
                Note::RollAgain
            }
        }
        (Some(last), Some(Next::Roll { .. })) if rolled && !played => Note::turn_lost(
            last.seat,
            before
                .game
                .is_none_or(|g| unused_rolls(&g).is_empty())
                .then_some(last.die),
            after.rolls.iter().rev().map(|r| (r.seat, r.die)),
        ),
        // A six was moved: the same colour rolls again.
        (Some(last), Some(Next::Roll { seat, .. }))
            if mover == Some(seat) && last.seat == seat && last.die.is_six() =>
        {
            Note::RollAgain
        }
        _ => Note::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Digest, RollRecord, Theme, TurnTimer};
    use crate::rules::{Die, Game, HouseRules, Move, Place, RuleSet, Seats};

    fn snapshot(game: Game, due: Due) -> Snapshot {
        let mut control = [None; 4];
        for c in game.seats().iter() {
            control[c.index()] = Some(Control::Player);
        }
        Snapshot {
            me: Colour::Red,
            start: game,
            first: FirstPlayer::Random,
            tie: None,
            timeouts: 0,
            timed_out: [0; 4],
            game: Some(game),
            due,
            head: Digest([0; 32]),
            control,
            returning: Colours::NONE,
            held_back: false,
            rolls: Vec::new(),
            moves: Vec::new(),
            withheld: Colours::NONE,
            timer: TurnTimer::Seconds10,
            theme: Theme::Classic,
            counted: true,
            forfeit: None,
        }
    }

    fn fresh() -> Game {
        let seats = Seats::for_players(2).unwrap();
        Game::new(RuleSet::Classic(HouseRules::default()), seats, Colour::Red).unwrap()
    }

    fn roll(seat: Colour, n: u8) -> RollRecord {
        RollRecord {
            roll: 1,
            seat,
            by_computer: false,
            die: Die::new(n).unwrap(),
        }
    }

    fn due_roll(seat: Colour) -> Due {
        Due::Roll {
            roll: 2,
            seat: Some(seat),
            by: Actor::Player(seat),
        }
    }

    /// `seat`'s player is to move.
    fn due_move(seat: Colour) -> Due {
        Due::Move {
            seat,
            by: Actor::Player(seat),
        }
    }

    /// Two players' game, red on T3 and green on T20, with `due`.
    fn apart(due: Due) -> Snapshot {
        use crate::app::board::tests::two_player_classic;
        snapshot(
            two_player_classic(["T3", "B", "B", "B"], ["T20", "B", "B", "B"]),
            due,
        )
    }

    fn four_players() -> Game {
        let seats = Seats::for_players(4).unwrap();
        Game::new(RuleSet::Classic(HouseRules::default()), seats, Colour::Red).unwrap()
    }

    #[test]
    fn a_phone_alone_with_one_overdue_opponent_is_not_stranded() {
        // The computer takes the seat once this phone votes it gone.
        let game = OnlineGame::new(snapshot(fresh(), due_roll(Colour::Red)));
        assert!(!game.stranded(&[(Colour::Green, 0)]));
    }

    #[test]
    fn a_phone_alone_among_four_is_stranded_only_once_the_others_are_overdue() {
        let game = OnlineGame::new(snapshot(four_players(), due_roll(Colour::Red)));
        let others = [Colour::Blue, Colour::Green, Colour::Yellow];
        let waiting: Vec<_> = others.iter().map(|&c| (c, 12)).collect();
        assert!(!game.stranded(&waiting), "still within the grace period");
        let overdue: Vec<_> = others.iter().map(|&c| (c, 0)).collect();
        assert!(game.stranded(&overdue));
        // Half of the players still here may vote the other half gone.
        assert!(!game.stranded(&overdue[1..]));
    }

    #[test]
    fn a_wait_the_votes_never_end_counts_as_stranded() {
        // Three players: this phone and blue may vote green gone, but blue
        // is gone too (the game does not wait on it): no certificate comes.
        let three = Game::new(
            RuleSet::Classic(HouseRules::default()),
            Seats::for_players(3).unwrap(),
            Colour::Red,
        )
        .unwrap();
        let mut game = OnlineGame::new(snapshot(three, due_roll(Colour::Red)));
        let overdue = [(Colour::Green, 0)];
        for _ in 1..NO_CERTIFICATE {
            game.tick(&overdue);
        }
        assert!(!game.stranded(&overdue), "the votes may still come");
        game.tick(&overdue);
        assert!(game.stranded(&overdue));
        // The log moves (a certificate, or green is back): the wait is over.
        game.update(game.snapshot().clone());
        assert!(!game.stranded(&overdue));
    }

    #[test]
    fn a_phone_found_gone_is_away_until_it_has_its_seat_back() {
        let mut shown = snapshot(four_players(), due_roll(Colour::Blue));
        let me = shown.me;
        shown.control[me.index()] = Some(Control::Absent);
        shown.held_back = true;
        let mut game = OnlineGame::new(shown.clone());
        assert_eq!(game.away(), Some(Away::Held), "found gone again");
        shown.held_back = false;
        game.update(shown.clone());
        assert_eq!(game.away(), Some(Away::Coming));
        assert!(game.computer(me), "its chip wears the computer's mark");
        // Voted back: it takes the seat when the turn passes.
        shown.returning = Colours::one(me);
        game.update(shown.clone());
        assert_eq!(game.away(), Some(Away::Back));
        // A game that ended while it was away: no turn will pass.
        let mut over = shown.clone();
        over.due = Due::Over(End::Won(Colour::Blue));
        game.update(over);
        assert_eq!(game.away(), None);
        shown.control[me.index()] = Some(Control::Player);
        shown.returning = Colours::NONE;
        game.update(shown);
        assert_eq!(game.away(), None);
    }

    #[test]
    fn a_phone_whose_opponents_left_or_dropped_is_not_stranded() {
        let mut four = snapshot(four_players(), due_roll(Colour::Red));
        four.control[Colour::Blue.index()] = Some(Control::Left);
        four.control[Colour::Green.index()] = Some(Control::Absent);
        let game = OnlineGame::new(four);
        assert!(!game.stranded(&[(Colour::Yellow, 0)]));
    }

    #[test]
    fn while_the_first_player_is_drawn_it_is_nobodys_turn() {
        // A classic room's default: a draw, which no phone's tap makes.
        let draw = Due::Roll {
            roll: 1,
            seat: None,
            by: Actor::Computer,
        };
        let mut opening = snapshot(fresh(), draw);
        opening.game = None;
        let mut game = OnlineGame::new(opening);
        assert!(game.drawing());
        assert!(!game.can_roll());
        assert!(!game.yours(), "no phone says it is its player's turn");
        // Red is drawn: red's phone says it is its turn.
        game.update(snapshot(fresh(), due_roll(Colour::Red)));
        assert!(!game.drawing());
        assert!(game.yours());
    }

    #[test]
    fn the_opening_shows_the_pieces_in_their_bases_and_then_who_begins() {
        // Red rolls 3, then green 5 for the highest roll.
        let mut opening = snapshot(fresh(), due_roll(Colour::Red));
        opening.game = None;
        let mut game = OnlineGame::new(opening.clone());
        assert_eq!(game.pieces().len(), 8, "every piece in its base");
        assert!(
            game.pieces()
                .iter()
                .all(|p| matches!(p.spot, Spot::Base(_)))
        );
        assert_eq!(game.face(&game.fairness()), None, "no roll yet");
        opening.rolls.push(roll(Colour::Red, 3));
        opening.due = due_roll(Colour::Green);
        game.update(opening.clone());
        assert_eq!(game.note(), Note::None);
        assert_eq!(
            game.face(&game.fairness()),
            Die::new(3),
            "red's roll, green to roll"
        );
        let seats = Seats::for_players(2).unwrap();
        let rules = RuleSet::Classic(HouseRules::default());
        let mut begun = snapshot(
            Game::new(rules, seats, Colour::Green).unwrap(),
            due_roll(Colour::Green),
        );
        begun.rolls = opening.rolls.clone();
        begun.rolls.push(roll(Colour::Green, 5));
        game.update(begun.clone());
        assert_eq!(
            game.note(),
            Note::Begins {
                seat: Colour::Green
            }
        );
        assert_eq!(game.pieces().len(), 8);
        assert_eq!(
            game.face(&game.fairness()),
            Die::new(5),
            "green begins: its roll"
        );
        begun.due = due_roll(Colour::Red);
        game.update(begun);
        assert_eq!(
            game.face(&game.fairness()),
            None,
            "red's turn: not green's roll"
        );
    }

    #[test]
    fn a_tie_of_the_highest_opening_rolls_is_said_as_it_comes() {
        // Red and green both roll 4: a tie, and red rolls again.
        let mut opening = snapshot(fresh(), due_roll(Colour::Red));
        opening.game = None;
        opening.first = FirstPlayer::HighestRoll;
        let mut game = OnlineGame::new(opening.clone());
        let mut rolled = |game: &mut OnlineGame, seat, n, next, tie| {
            opening.rolls.push(roll(seat, n));
            opening.due = due_roll(next);
            opening.tie = Die::new(tie);
            game.update(opening.clone());
            game.note()
        };
        assert_eq!(
            rolled(&mut game, Colour::Red, 4, Colour::Green, 0),
            Note::None
        );
        let at = |n| Note::Tie {
            face: Die::new(n).unwrap(),
        };
        assert_eq!(rolled(&mut game, Colour::Green, 4, Colour::Red, 4), at(4));
        // Red's new roll is no tie, and a tie only when it is one.
        assert_eq!(
            rolled(&mut game, Colour::Red, 2, Colour::Green, 0),
            Note::None
        );
        assert_eq!(rolled(&mut game, Colour::Green, 2, Colour::Red, 2), at(2));
        // A catch-up that ends at a tie says it too: the tied players
        // are still to roll.
        let mut caught_up = OnlineGame::new(snapshot(fresh(), due_roll(Colour::Red)));
        caught_up.update(opening.clone());
        assert_eq!(caught_up.note(), at(2));
    }

    /// Two sides that played apart meet again, and this side's turns are
    /// undone: the board follows the others' game and says why.
    #[test]
    fn a_game_undone_as_the_phones_meet_again_says_so() {
        let mut game = OnlineGame::new(snapshot(fresh(), due_roll(Colour::Red)));
        let mut apart = fresh();
        apart.roll(Die::new(2).unwrap()).unwrap();
        let mut here = snapshot(apart, due_roll(Colour::Red));
        here.rolls.push(roll(Colour::Red, 2));
        game.update(here);
        assert_eq!(game.note(), Note::TryAgain { attempt: 2 });
        let mut kept = fresh();
        kept.roll(Die::new(3).unwrap()).unwrap();
        let mut theirs = snapshot(kept, due_roll(Colour::Red));
        theirs.rolls.push(roll(Colour::Red, 3));
        game.update(theirs);
        assert_eq!(game.note(), Note::Undone);
    }

    #[test]
    fn a_roll_without_a_six_notes_the_second_try_and_then_the_lost_turn() {
        let before = snapshot(fresh(), due_roll(Colour::Red));
        let mut game = OnlineGame::new(before.clone());
        let mut after = fresh();
        after.roll(Die::new(2).unwrap()).unwrap();
        let mut second = snapshot(after, due_roll(Colour::Red));
        second.rolls.push(roll(Colour::Red, 2));
        game.update(second.clone());
        assert_eq!(game.note(), Note::TryAgain { attempt: 2 });
        let mut lost = fresh();
        for _ in 0..3 {
            lost.roll(Die::new(2).unwrap()).unwrap();
        }
        let mut third = snapshot(lost, due_roll(Colour::Green));
        third.rolls = vec![roll(Colour::Red, 2); 3];
        game.update(third);
        assert_eq!(game.note(), Note::NoSix { seat: Colour::Red });
    }

    #[test]
    fn the_rolls_that_choose_who_begins_say_how_they_do_until_they_have() {
        let mut opening = snapshot(fresh(), due_roll(Colour::Red));
        opening.game = None;
        for first in [FirstPlayer::FirstSix, FirstPlayer::HighestRoll] {
            opening.first = first;
            assert_eq!(OnlineGame::new(opening.clone()).opening(), Some(first));
        }
        // A draw is no rolling (the header says it draws), and a game
        // under way has begun.
        opening.first = FirstPlayer::Random;
        assert_eq!(OnlineGame::new(opening.clone()).opening(), None);
        let mut begun = snapshot(fresh(), due_roll(Colour::Red));
        begun.first = FirstPlayer::FirstSix;
        assert_eq!(OnlineGame::new(begun).opening(), None);
    }

    #[test]
    fn the_computer_taking_over_this_players_turn_as_their_time_ran_out_is_said() {
        use crate::app::board::tests::two_player_classic;
        let mine = due_move(Colour::Red);
        let mut game = OnlineGame::new(apart(mine));
        // The phone's timer ran out: its computer moved red. Green is a
        // computer seat.
        let green = Due::Roll {
            roll: 3,
            seat: Some(Colour::Green),
            by: Actor::Computer,
        };
        let mut moved = snapshot(
            two_player_classic(["T8", "B", "B", "B"], ["T20", "B", "B", "B"]),
            green,
        );
        moved.timeouts = 1;
        game.update(moved.clone());
        let timed_out = Note::TimedOut { seat: Colour::Red };
        assert_eq!(game.note(), timed_out);
        // Kept while the computer's acts have nothing else to say...
        let mut green_moved = moved.clone();
        green_moved.due = due_roll(Colour::Red);
        game.update(green_moved.clone());
        assert_eq!(game.note(), timed_out);
        // At this player's next roll they are told, until they roll.
        assert!(game.ran_out());
        // ...but a person's act speaks for itself.
        let mut red_moved = green_moved.clone();
        red_moved.due = green;
        game.update(red_moved);
        assert_eq!(game.note(), Note::None);
        assert!(!game.ran_out(), "not this player's roll");
        // Told again at the next roll, after a note of its own, and
        // after a roll the phone made as this player (the rest of a
        // timed-out turn is signed as theirs).
        game.update(green_moved.clone());
        assert!(game.ran_out());
        let mut rolled = green_moved.clone();
        rolled.rolls.push(roll(Colour::Red, 3));
        game.update(rolled);
        assert!(game.ran_out());
        assert_eq!(game.roll(), Some(Action::Roll));
        assert!(!game.ran_out(), "the die tapped");
        let mut red_moved = green_moved;
        red_moved.due = green;
        game.update(red_moved);
        assert_eq!(game.roll(), None, "not this player's roll");
    }

    #[test]
    fn another_players_time_running_out_is_said_from_the_log() {
        use crate::app::board::tests::two_player_classic;
        let greens = due_move(Colour::Green);
        let mut game = OnlineGame::new(apart(greens));
        // Green's phone played the computer's move as green's time ran
        // out: the log holds it as such.
        let mut moved = snapshot(
            two_player_classic(["T3", "B", "B", "B"], ["T24", "B", "B", "B"]),
            due_roll(Colour::Red),
        );
        moved.timed_out[Colour::Green.index()] = 1;
        game.update(moved.clone());
        assert_eq!(
            game.note(),
            Note::TimedOut {
                seat: Colour::Green
            }
        );
        assert!(!game.ran_out(), "not this player's time");
        // Not in a catch-up of several seats' turns: long gone by now.
        let mut game = OnlineGame::new(apart(greens));
        let mut caught_up = moved.clone();
        caught_up.rolls = vec![roll(Colour::Green, 4), roll(Colour::Red, 2)];
        game.update(caught_up);
        assert_eq!(game.note(), Note::None);
        // A move green's player made is no time-out.
        let mut game = OnlineGame::new(apart(greens));
        moved.timed_out = [0; 4];
        game.update(moved);
        assert_eq!(game.note(), Note::None);
    }

    #[test]
    fn a_player_who_leaves_or_whose_phone_is_gone_is_said() {
        let before = snapshot(four_players(), due_roll(Colour::Red));
        for (control, said) in [
            (Control::Left, Note::Left { seat: Colour::Blue }),
            (Control::Absent, Note::Gone { seat: Colour::Blue }),
        ] {
            let mut game = OnlineGame::new(before.clone());
            let mut after = before.clone();
            after.control[Colour::Blue.index()] = Some(control);
            game.update(after);
            assert_eq!(game.note(), said);
        }
        // This player's own phone, voted gone while the app was closed,
        // learns it in its catch-up: it is not told its phone is gone.
        let mut game = OnlineGame::new(before.clone());
        let mut after = before;
        after.control[Colour::Red.index()] = Some(Control::Absent);
        game.update(after);
        assert_eq!(game.note(), Note::None);
    }

    #[test]
    fn several_seats_turns_at_once_name_no_one_rolls_news() {
        use crate::app::board::tests::two_player_classic;
        // A catch-up: green rolled a 3 and captured red, then red rolled.
        let before = snapshot(
            two_player_classic(["T14", "B", "B", "B"], ["T11", "B", "B", "B"]),
            due_roll(Colour::Green),
        );
        let mut game = OnlineGame::new(before);
        let mut after = snapshot(
            two_player_classic(["B", "B", "B", "B"], ["T14", "B", "B", "B"]),
            due_roll(Colour::Green),
        );
        after.rolls = vec![roll(Colour::Green, 3), roll(Colour::Red, 2)];
        game.update(after);
        assert_eq!(game.note(), Note::None);
    }

    #[test]
    fn a_turn_the_computer_played_for_a_player_is_no_lost_turn() {
        use crate::app::board::tests::two_player_classic;
        // Green's time ran out: the computer rolls a 3 and moves, and the
        // phone hears both at once.
        let computer = Due::Roll {
            roll: 5,
            seat: Some(Colour::Green),
            by: Actor::Computer,
        };
        for (red_after, said) in [
            ("T3", Note::None),
            (
                "B",
                Note::Captured {
                    piece: Colour::Red,
                    by: Colour::Green,
                },
            ),
        ] {
            let red_before = if red_after == "B" { "T14" } else { "T3" };
            let before = two_player_classic([red_before, "B", "B", "B"], ["T11", "B", "B", "B"]);
            let mut game = OnlineGame::new(snapshot(before, computer));
            let after = two_player_classic([red_after, "B", "B", "B"], ["T14", "B", "B", "B"]);
            let mut after = snapshot(after, due_roll(Colour::Red));
            after.rolls.push(roll(Colour::Green, 3));
            game.update(after);
            assert_eq!(game.note(), said, "red on {red_before}");
        }
    }

    #[test]
    fn a_capture_by_another_colour_is_noted() {
        use crate::app::board::tests::two_player_classic;
        let moving = due_move(Colour::Red);
        let mut game = OnlineGame::new(snapshot(
            two_player_classic(["T3", "B", "B", "B"], ["T5", "B", "B", "B"]),
            moving,
        ));
        game.update(snapshot(
            two_player_classic(["T5", "B", "B", "B"], ["B", "B", "B", "B"]),
            due_roll(Colour::Green),
        ));
        assert_eq!(
            game.note(),
            Note::Captured {
                piece: Colour::Green,
                by: Colour::Red
            }
        );
    }

    #[test]
    fn the_turn_timer_counts_down_a_persons_turn_on_every_phone_and_starts_again_at_the_next() {
        let mine = Due::Roll {
            roll: 1,
            seat: Some(Colour::Red),
            by: Actor::Player(Colour::Red),
        };
        let mut game = OnlineGame::new(snapshot(fresh(), mine));
        assert_eq!(game.time_left(), Some(10));
        // The phones count from the first tick after the entry.
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(10));
        game.tick(&[]);
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(8));
        // Every phone shows the time of the player in turn, but not a
        // silent one's (its phone is gone), nor the computer's.
        let theirs = due_roll(Colour::Green);
        game.update(after(1, snapshot(fresh(), theirs)));
        assert_eq!(game.time_left(), Some(10), "another player's time");
        game.tick(&[]);
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(9));
        game.tick(&[(Colour::Green, 44)]);
        assert_eq!(game.time_left(), None, "its phone is gone");
        let computer = Due::Roll {
            roll: 3,
            seat: Some(Colour::Green),
            by: Actor::Computer,
        };
        game.update(after(2, snapshot(fresh(), computer)));
        assert_eq!(game.time_left(), None, "the computer plays at once");
        game.update(after(3, snapshot(fresh(), mine)));
        assert_eq!(game.time_left(), Some(10));
    }

    /// `snapshot` as the log shows it after its entry `entry`.
    fn after(entry: u8, mut snapshot: Snapshot) -> Snapshot {
        snapshot.head = Digest([entry; 32]);
        snapshot
    }

    /// This phone's clock shows 0:00 at the tick at which its phone plays
    /// for its player (`protocol::Watch`, on the same ticks), not before.
    #[test]
    fn the_clock_runs_out_at_the_tick_the_phone_plays_for_its_player() {
        use crate::protocol::{Header, Waiting, Watch};
        let mut header = Header::new([0; 32], RuleSet::Classic(HouseRules::default()), [None; 4]);
        header.timer = TurnTimer::Seconds10;
        let mut watch = Watch::new(&header, 0);
        let mut game = OnlineGame::new(snapshot(fresh(), due_roll(Colour::Green)));
        watch.observe_waiting(0, Digest([0; 32]), Waiting::default());
        // Between two ticks the log moves on to red's (this player's) roll.
        game.update(after(1, snapshot(fresh(), due_roll(Colour::Red))));
        let mine = Waiting {
            mine: true,
            ..Waiting::default()
        };
        let mut expired = false;
        for k in 1..=11 {
            // As net::play ticks: the phone's watch, then the app's clock.
            expired = watch
                .observe_waiting(k * 1000, Digest([1; 32]), mine)
                .timer_expired;
            game.tick(&[]);
            assert_eq!(game.time_left() == Some(0), expired, "tick {k}");
        }
        assert!(expired, "10 s after the first tick");
    }

    #[test]
    fn the_turn_timer_starts_again_at_each_entry_of_the_log_though_the_same_move_is_due() {
        // Red has made one run of its Matfyz turn and makes the next: the
        // log has a new entry, red's move is due again, and every phone
        // counts red's whole time again from that entry.
        let moving = matfyz_moving(Actor::Player(Colour::Red));
        let mut game = OnlineGame::new(moving.clone());
        for _ in 0..8 {
            game.tick(&[]);
        }
        assert_eq!(game.time_left(), Some(3));
        game.update(moving.clone());
        assert_eq!(game.time_left(), Some(3), "the same log: the count goes on");
        game.update(after(1, moving));
        assert_eq!(game.time_left(), Some(10));
    }

    #[test]
    fn another_players_time_is_counted_again_when_their_phone_speaks_again() {
        let greens = Due::Roll {
            roll: 3,
            seat: Some(Colour::Green),
            by: Actor::Player(Colour::Green),
        };
        let mut game = OnlineGame::new(apart(greens));
        for _ in 0..11 {
            game.tick(&[]);
        }
        assert_eq!(game.time_left(), Some(0));
        // Green's phone went quiet (its grace time is shown instead)...
        game.tick(&[(Colour::Green, 40)]);
        assert_eq!(game.time_left(), None);
        // ...and came back, restarted: it counts green's whole time anew,
        // and so does this phone, rather than show it run out.
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(10));
        // Another phone's silence (a reveal this turn waits for) changes
        // nothing of green's time, nor does a blip of green's phone while
        // its time runs: it goes on counting.
        game.tick(&[(Colour::Blue, 40)]);
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(8));
        game.tick(&[(Colour::Green, 40)]);
        game.tick(&[]);
        assert_eq!(game.time_left(), Some(6));
    }

    #[test]
    fn a_game_counted_as_lost_for_a_phone_gone_at_its_own_roll_says_so() {
        let mut gone = apart(Due::Over(End::Won(Colour::Red)));
        assert!(!OnlineGame::new(gone.clone()).counted_as_lost());
        gone.withheld = Colours::one(Colour::Red);
        assert!(OnlineGame::new(gone.clone()).counted_as_lost());
        // Not another's mark; not a leave, which the result shows anyway;
        // not a game that counts nowhere.
        gone.me = Colour::Green;
        assert!(!OnlineGame::new(gone.clone()).counted_as_lost());
        gone.me = Colour::Red;
        gone.control[Colour::Red.index()] = Some(Control::Left);
        assert!(!OnlineGame::new(gone.clone()).counted_as_lost());
        gone.control[Colour::Red.index()] = Some(Control::Player);
        gone.counted = false;
        assert!(!OnlineGame::new(gone).counted_as_lost());
    }

    #[test]
    fn leaving_a_game_everyone_else_left_ends_it_as_this_players_win() {
        use crate::app::board::tests::two_player_classic;
        let mut left_alone = snapshot(
            two_player_classic(["T3", "B", "B", "B"], ["T20", "B", "B", "B"]),
            Due::Roll {
                roll: 9,
                seat: Some(Colour::Green),
                by: Actor::Computer,
            },
        );
        let mut not_yet = OnlineGame::new(left_alone.clone());
        assert!(!not_yet.won_if_left(), "green has not left");
        not_yet.leave();
        assert_eq!(not_yet.over(), None, "leaving it is not winning it");

        left_alone.control[Colour::Green.index()] = Some(Control::Left);
        left_alone.forfeit = Some(Colour::Red);
        let mut game = OnlineGame::new(left_alone);
        assert!(game.won_if_left());
        game.leave();
        assert_eq!(game.over(), Some(Some(Colour::Red)));
        assert!(!game.won_if_left(), "over");
        assert_eq!(game.turn(), None);
        assert!(game.yours(), "\"You win!\"");
        assert_eq!(game.ranking(), [Colour::Red, Colour::Green]);
    }

    #[test]
    fn a_game_won_by_forfeit_names_the_player_who_stayed_and_ranks_the_leaver_last() {
        use crate::app::board::tests::two_player_classic;
        // Green left, and the computer brought green's pieces home before
        // red got there (three of them on this board, against red's one);
        // but red, left alone, wins by forfeit.
        let mut over = snapshot(
            two_player_classic(["H1", "B", "B", "B"], ["H1", "H2", "H3", "T10"]),
            Due::Over(End::Won(Colour::Green)),
        );
        over.control[Colour::Green.index()] = Some(Control::Left);
        over.forfeit = Some(Colour::Red);
        let mut before = over.clone();
        before.due = Due::Move {
            seat: Colour::Green,
            by: Actor::Computer,
        };
        assert_eq!(
            note(&before, &over, None),
            Note::Won {
                winner: Colour::Red
            }
        );
        let game = OnlineGame::new(over);
        assert_eq!(game.over(), Some(Some(Colour::Red)));
        assert_eq!(game.named(), Colour::Red, "the header's winner");
        assert!(game.yours(), "this phone's player won: \"You win!\"");
        assert!(!game.unwon());
        assert_eq!(game.ranking(), [Colour::Red, Colour::Green]);
        // Where others stay, whoever left ranks below them all.
        let mut four = snapshot(four_players(), Due::Over(End::Won(Colour::Red)));
        four.control[Colour::Blue.index()] = Some(Control::Left);
        let ranking = OnlineGame::new(four).ranking();
        assert_eq!(ranking[0], Colour::Red);
        assert_eq!(ranking[3], Colour::Blue);
    }

    #[test]
    fn a_game_whose_dice_ran_out_names_nobody() {
        use crate::app::board::tests::two_player_classic;
        let game = two_player_classic(["T1", "B", "B", "B"], ["T11", "B", "B", "B"]);
        let game = OnlineGame::new(snapshot(game, Due::Over(End::OutOfDice)));
        assert_eq!(game.over(), Some(None));
        assert!(
            game.unwon(),
            "the header says the game ended without a winner"
        );
        // Nobody home: green, further ahead, places first, as it would
        // in a game on one device.
        assert_eq!(game.ranking(), [Colour::Green, Colour::Red]);
        assert!(!game.yours());
        let game = two_player_classic(["T1", "B", "B", "B"], ["T11", "B", "B", "B"]);
        let playing = Due::Roll {
            roll: 1,
            seat: Some(Colour::Red),
            by: Actor::Player(Colour::Red),
        };
        assert!(!OnlineGame::new(snapshot(game, playing)).unwon());
    }

    #[test]
    fn the_die_is_tappable_only_on_this_players_roll() {
        let mine = Due::Roll {
            roll: 1,
            seat: Some(Colour::Red),
            by: Actor::Player(Colour::Red),
        };
        assert!(OnlineGame::new(snapshot(fresh(), mine)).can_roll());
        let theirs = Due::Roll {
            roll: 1,
            seat: Some(Colour::Green),
            by: Actor::Player(Colour::Green),
        };
        let game = OnlineGame::new(snapshot(fresh(), theirs));
        assert!(!game.can_roll());
        assert_eq!(game.turn(), Some(Colour::Green));
    }

    /// A tap on the die is taken once: until the log moves on, the roll
    /// waits on the others' reveals, and neither the die nor the time left
    /// is shown as this player's (the time stood at 0:00 while a dropped
    /// phone's reveal was awaited, and the roll history closed as if hurried).
    #[test]
    fn a_die_tapped_is_the_others_to_wait_on_until_the_log_moves_on() {
        let mine = due_roll(Colour::Red);
        let mut game = OnlineGame::new(snapshot(fresh(), mine));
        assert_eq!(game.time_left(), Some(10));
        assert_eq!(game.roll(), Some(Action::Roll));
        assert!(!game.can_roll());
        assert_eq!(game.roll(), None, "taken once");
        assert_eq!(game.time_left(), None);
        // Another roll of this player's due, at the next entry.
        let next = Snapshot {
            head: Digest([1; 32]),
            ..snapshot(fresh(), mine)
        };
        game.update(next);
        assert!(game.can_roll());
    }

    /// A player whose time ran out and who then moves by hand (the
    /// computer's six brought a piece out) is not told of it again at the
    /// six's roll: they have acted since.
    #[test]
    fn a_move_by_hand_after_a_time_out_is_acting_again() {
        let mut game = fresh();
        game.roll(Die::SIX).unwrap();
        let mut online = OnlineGame::new(snapshot(game, due_move(Colour::Red)));
        online.ran_out = true;
        let movable = online.pieces().into_iter().find(|p| p.movable).unwrap();
        assert!(online.tap(movable.id).is_some());
        assert!(!online.ran_out);
    }

    #[test]
    fn a_tap_on_a_movable_piece_is_its_move_and_other_taps_are_nothing() {
        let mut game = fresh();
        game.roll(Die::SIX).unwrap();
        let due = due_move(Colour::Red);
        let mut online = OnlineGame::new(snapshot(game, due));
        let movable: Vec<PieceView> = online.pieces().into_iter().filter(|p| p.movable).collect();
        let start = Spot::Track(Colour::Red.start());
        assert_eq!(online.targets(), [start]);
        assert_eq!(online.tap_to(start), online.tap(movable[0].id));
        assert_eq!(movable.len(), 4, "every base piece is offered");
        for piece in &movable {
            let action = online.tap(piece.id);
            assert_eq!(action, Some(Action::Move(game.legal_moves()[0])));
        }
        // The log brings the move back: the last piece of the base came
        // out, whichever was tapped, as on the phones that saw no tap, so
        // that every phone empties the same cell.
        let mut online = OnlineGame::new(snapshot(game, due));
        online.tap(movable[1].id);
        let mut after = game;
        after.play(game.legal_moves()[0]).unwrap();
        let again = Due::Roll {
            roll: 2,
            seat: Some(Colour::Red),
            by: Actor::Player(Colour::Red),
        };
        online.update(snapshot(after, again));
        let out = online
            .pieces()
            .into_iter()
            .find(|p| p.id == movable[3].id)
            .unwrap();
        assert_eq!(out.spot, start);
        let green = PieceId {
            colour: Colour::Green,
            slot: 0,
        };
        assert_eq!(online.tap(green), None);
    }

    #[test]
    fn a_seat_the_computer_plays_is_marked_and_the_rolls_are_kept() {
        let mut snap = snapshot(fresh(), Due::Over(End::Won(Colour::Green)));
        snap.control[Colour::Green.index()] = Some(Control::Absent);
        snap.rolls.push(RollRecord {
            roll: 1,
            seat: Colour::Red,
            by_computer: false,
            die: Die::SIX,
        });
        let game = OnlineGame::new(snap);
        assert!(game.computer(Colour::Green));
        assert!(!game.computer(Colour::Red));
        assert_eq!(game.over(), Some(Some(Colour::Green)));
        assert_eq!(game.fairness().faces(Colour::Red), [0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_matfyz_game_shows_every_piece_and_offers_none_while_a_roll_is_due() {
        let seats = Seats::for_players(2).unwrap();
        let game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
        let mut board = OnlineGame::new(snapshot(game, due_roll(Colour::Red)));
        let pieces = board.pieces();
        assert_eq!(pieces.len(), 8, "{pieces:?}");
        assert!(pieces.iter().all(|p| !p.movable));
        // A base holds one piece of each colour, each in its colour's cell.
        let mut cells: Vec<_> = pieces.iter().map(|p| p.cell).collect();
        cells.sort();
        cells.dedup();
        assert_eq!(cells.len(), 8);
        assert_eq!(board.tap(pieces[0].id), None);
    }

    /// docs/matfyz.md's position with red to move after 6 and 3, red this
    /// phone's player (`by` who makes the move).
    fn matfyz_moving(by: Actor) -> Snapshot {
        use crate::rules::matfyz;
        let rolls = matfyz::Rolls {
            sixes: 1,
            last: Some(Die::new(3).unwrap()),
        };
        let layout = super::super::matfyz::docs_example(rolls);
        let position = matfyz::Position::new(&layout).unwrap();
        let game = Game::Matfyz(matfyz::Game::new(position));
        snapshot(
            game,
            Due::Move {
                seat: Colour::Red,
                by,
            },
        )
    }

    #[test]
    fn a_matfyz_turn_lost_with_its_sixes_names_no_one_roll() {
        // Red holds a six and a 3 for the plan; its next roll loses them all.
        let before = matfyz_moving(Actor::Player(Colour::Red));
        let green = Game::new(RuleSet::Matfyz, before.start.seats(), Colour::Green).unwrap();
        let mut after = snapshot(green, due_roll(Colour::Green));
        after.rolls = vec![roll(Colour::Red, 6), roll(Colour::Red, 3)];
        assert_eq!(
            note(&before, &after, None),
            Note::TurnLost {
                seat: Colour::Red,
                die: None
            }
        );
    }

    #[test]
    fn a_matfyz_run_that_leaves_a_roll_no_piece_can_use_says_it_is_lost() {
        let game = crate::app::board::tests::red_near_home_with_six_and_four();
        let mover = Actor::Player(Colour::Red);
        let before = snapshot(
            game,
            Due::Move {
                seat: Colour::Red,
                by: mover,
            },
        );
        let home = (game.legal_moves().into_iter())
            .find(|mv| matches!(mv, Move::Matfyz(run) if run.to() == Place::Home(1)))
            .unwrap();
        let mut moved = game;
        moved.play(home).unwrap();
        let after = snapshot(moved, due_roll(Colour::Green));
        let lost = Note::Unused {
            seat: Colour::Red,
            die: Some(Die::new(4).unwrap()),
        };
        assert_eq!(note(&before, &after, None), lost);
    }

    #[test]
    fn online_a_matfyz_plan_is_asked_and_the_answer_is_the_move_sent() {
        let mut online = OnlineGame::new(matfyz_moving(Actor::Player(Colour::Red)));
        let yellow = online
            .pieces()
            .into_iter()
            .find(|p| p.spot == Spot::Track(10))
            .unwrap();
        assert!(yellow.movable);
        assert_eq!(online.tap(yellow.id), None, "asked first");
        let Some((_, Choice::Plan(plans))) = online.choice() else {
            panic!("no plan asked: {:?}", online.choice());
        };
        assert_eq!(plans.len(), 2);
        let Some(Action::Move(Move::Matfyz(run))) = online.choose(1) else {
            panic!("the answer is no move");
        };
        assert_eq!(run.to(), Place::Track(19));
        assert_eq!(run.rolls().count(), 2);
    }

    #[test]
    fn online_a_question_is_dropped_when_the_computer_moves_instead() {
        let mut online = OnlineGame::new(matfyz_moving(Actor::Player(Colour::Red)));
        let yellow = online
            .pieces()
            .into_iter()
            .find(|p| p.spot == Spot::Track(10))
            .unwrap();
        online.tap(yellow.id);
        assert!(online.choice().is_some());
        // The turn timer ran out: the computer makes red's move.
        online.update(matfyz_moving(Actor::Computer));
        assert_eq!(online.choice(), None);
        assert!(online.pieces().iter().all(|p| !p.movable));
        assert_eq!(online.choose(0), None);
    }
}
