//! The controller of an online game's board: the replicated log's state
//! ([`Snapshot`]) as the game screen draws it, and this player's taps as
//! the game's [`Action`]s. Plain Rust, tested without a window.
//!
//! The log knows only where each colour has pieces; to animate one piece
//! moving, this keeps each piece's identity (its slot) from one state to
//! the next, as the offline controller does.

use crate::net::front::Action;
use crate::protocol::{Actor, Control, Due, End};
use crate::rules::{Colour, Game, Move, Next, Place};

use super::fairness::{Fairness, Roll};
use super::geometry::Spot;
use super::offline::{Note, PieceId, PieceView, base_slot, identified};
use super::online::Snapshot;
use super::turn_clock::TurnClock;

/// An online game as this phone shows it.
pub struct OnlineGame {
    snapshot: Snapshot,
    /// Each piece's place, by colour and slot.
    slots: [[Place; 4]; 4],
    /// What the last update did, for the note below the die.
    note: Note,
    /// This player's time for the roll or move that is due, counted on the
    /// network's once-a-second ticks (the phone itself plays for the
    /// player when it runs out, as every phone agrees).
    clock: TurnClock,
}

impl OnlineGame {
    /// The board of `snapshot`.
    pub fn new(snapshot: Snapshot) -> OnlineGame {
        let timer = snapshot.timer;
        let mut game = OnlineGame {
            snapshot,
            slots: [[Place::Base; 4]; 4],
            note: Note::None,
            clock: TurnClock::new(timer),
        };
        if let Some(g) = game.classic() {
            for colour in g.seats().iter() {
                game.slots[colour.index()] = places(&g, colour);
            }
        }
        game
    }

    /// The log moved on to `snapshot`: pieces that did not move keep their
    /// slots, the ones that did take the new places.
    pub fn update(&mut self, snapshot: Snapshot) {
        let before = std::mem::replace(&mut self.snapshot, snapshot);
        let mut captured = None;
        if let Some(g) = self.classic() {
            for colour in g.seats().iter() {
                let slots = &mut self.slots[colour.index()];
                let new = reslot(*slots, places(&g, colour));
                if bases(&new) > bases(slots) {
                    captured = Some(colour);
                }
                *slots = new;
            }
        }
        self.note = note(&before, &self.snapshot, captured);
        if before.due != self.snapshot.due {
            self.clock.restart();
        }
    }

    /// A second passed (the network's tick).
    pub fn tick(&mut self) {
        if self.time_left().is_some() {
            self.clock.tick();
        }
    }

    /// The seconds this player has left for their roll or move, when it is
    /// due and the game has a turn timer.
    pub fn time_left(&self) -> Option<u16> {
        self.clock
            .left()
            .filter(|_| self.can_roll() || self.must_move())
    }

    /// What the last update did.
    pub fn note(&self) -> Note {
        self.note
    }

    /// The rules' game, if it is a classic one: a Matfyz game's pieces are
    /// shared and have no slots to keep (see [`OnlineGame::pieces`]).
    fn classic(&self) -> Option<Game> {
        self.snapshot.game.filter(|g| matches!(g, Game::Classic(_)))
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
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

    /// Whether this player may tap the die now.
    pub fn can_roll(&self) -> bool {
        matches!(self.snapshot.due, Due::Roll { by: Actor::Player(c), .. } if c == self.me())
    }

    /// Whether this player is to move now.
    pub fn must_move(&self) -> bool {
        matches!(self.snapshot.due, Due::Move { by: Actor::Player(c), .. } if c == self.me())
    }

    /// Whether the computer plays `colour` now (a computer seat, or a
    /// player who left or whose phone is gone).
    pub fn computer(&self, colour: Colour) -> bool {
        matches!(
            self.snapshot.control[colour.index()],
            Some(Control::Computer | Control::Absent | Control::Left)
        )
    }

    /// The winner, once the game is over (`Some(None)`: nobody won).
    pub fn over(&self) -> Option<Option<Colour>> {
        match self.snapshot.due {
            Due::Over(End::Won(colour)) => Some(Some(colour)),
            Due::Over(_) => Some(None),
            _ => None,
        }
    }

    /// The game's rolls, for the die and the fairness view.
    pub fn fairness(&self) -> Fairness {
        Fairness::from_rolls(self.snapshot.rolls.iter().copied().map(Roll::from))
    }

    /// Every piece, with whether this player may tap it now. A Matfyz
    /// game is shown but not tapped: online, the computer chooses this
    /// player's Matfyz runs (see [`super::online`]).
    pub fn pieces(&self) -> Vec<PieceView> {
        if let Some(game @ Game::Matfyz(_)) = &self.snapshot.game {
            return identified(game)
                .into_iter()
                .map(|(id, spot)| PieceView {
                    id,
                    spot,
                    cell: spot.cell(base_slot(game, id)),
                    movable: false,
                })
                .collect();
        }
        self.offers()
            .into_iter()
            .map(|(id, place, to)| {
                let spot = Spot::of(id.colour, place);
                PieceView {
                    id,
                    spot,
                    cell: spot.cell(id.slot),
                    movable: to.is_some(),
                }
            })
            .collect()
    }

    /// Where this player's pieces may end their move now: the squares the
    /// board marks.
    pub fn targets(&self) -> Vec<Spot> {
        self.offers()
            .into_iter()
            .filter_map(|(id, _, to)| Some(Spot::of(id.colour, to?)))
            .collect()
    }

    /// Every piece with its place and, if tapping it now moves it, where
    /// to. Pieces in a base share the moves out of it: the first of them
    /// takes the move, so one tap brings exactly one piece out.
    fn offers(&self) -> Vec<(PieceId, Place, Option<Place>)> {
        let Some(game) = self.classic() else {
            return Vec::new();
        };
        let moves: Vec<(Colour, Place, Place)> = if self.must_move() {
            game.legal_moves()
                .into_iter()
                .filter_map(endpoints)
                .collect()
        } else {
            Vec::new()
        };
        let mut offers = Vec::with_capacity(16);
        for colour in game.seats().iter() {
            let mut base_offered = false;
            for (slot, &place) in self.slots[colour.index()].iter().enumerate() {
                let mut to = moves
                    .iter()
                    .find(|&&(c, from, _)| c == colour && from == place)
                    .map(|&(_, _, to)| to);
                if place == Place::Base && to.is_some() {
                    to = to.filter(|_| !base_offered);
                    base_offered = true;
                }
                offers.push((PieceId { colour, slot }, place, to));
            }
        }
        offers
    }

    /// This player taps a marked square: the move of the piece that lands
    /// there.
    pub fn tap_to(&self, spot: Spot) -> Option<Action> {
        let (piece, _, _) = self
            .offers()
            .into_iter()
            .find(|(id, _, to)| to.is_some_and(|to| Spot::of(id.colour, to) == spot))?;
        self.tap(piece)
    }

    /// This player taps `piece`: the move, if it may move now.
    pub fn tap(&self, piece: PieceId) -> Option<Action> {
        let game = self.classic()?;
        if !self.must_move() {
            return None;
        }
        let place = *self.slots.get(piece.colour.index())?.get(piece.slot)?;
        game.legal_moves()
            .into_iter()
            .find(|&mv| {
                endpoints(mv)
                    .is_some_and(|(colour, from, _)| colour == piece.colour && from == place)
            })
            .map(Action::Move)
    }
}

/// Where `colour`'s pieces stand in a classic game.
fn places(game: &Game, colour: Colour) -> [Place; 4] {
    match game {
        Game::Classic(g) => g.position().places(colour),
        // `OnlineGame::classic` lets only classic games through.
        Game::Matfyz(_) => [Place::Base; 4],
    }
}

/// The moving colour and its piece's place before and after a classic
/// move.
fn endpoints(mv: Move) -> Option<(Colour, Place, Place)> {
    match mv {
        Move::Classic(m) => Some((m.colour(), m.from(), m.to())),
        Move::Matfyz(_) => None,
    }
}

/// How many of `places` are in the base.
fn bases(places: &[Place; 4]) -> usize {
    places.iter().filter(|p| **p == Place::Base).count()
}

/// What happened from `before` to `after`: `captured` is a colour that
/// has a piece more in its base.
fn note(before: &Snapshot, after: &Snapshot, captured: Option<Colour>) -> Note {
    if let Due::Over(End::Won(winner)) = after.due {
        return Note::Won { winner };
    }
    let mover = match before.due {
        Due::Move { seat, .. } => Some(seat),
        _ => None,
    };
    if let (Some(piece), Some(by)) = (captured, mover)
        && piece != by
    {
        return Note::Captured { piece, by };
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
        (Some(last), Some(Next::Roll { .. })) if rolled => Note::TurnLost { seat: last.seat },
        // A six was moved: the same colour rolls again.
        (Some(last), Some(Next::Roll { seat, .. }))
            if mover == Some(seat) && last.seat == seat && last.die.is_six() =>
        {
            Note::RollAgain
        }
        _ => Note::None,
    }
}

/// `old` slots moved on to the places `new`: a slot whose place is among
/// the new places keeps it; the others take the new places left over.
fn reslot(old: [Place; 4], new: [Place; 4]) -> [Place; 4] {
    let mut left: Vec<Place> = new.to_vec();
    let mut kept = [None; 4];
    for (slot, place) in old.iter().enumerate() {
        if let Some(i) = left.iter().position(|p| p == place) {
            kept[slot] = Some(left.swap_remove(i));
        }
    }
    let mut left = left.into_iter();
    kept.map(|k| k.or_else(|| left.next()).unwrap_or(Place::Base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RollRecord, TurnTimer};
    use crate::rules::{Die, HouseRules, RuleSet, Seats};

    fn snapshot(game: Game, due: Due) -> Snapshot {
        let mut control = [None; 4];
        for c in game.seats().iter() {
            control[c.index()] = Some(Control::Player);
        }
        Snapshot {
            me: Colour::Red,
            game: Some(game),
            due,
            control,
            rolls: Vec::new(),
            timer: TurnTimer::Seconds10,
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
        assert_eq!(game.note(), Note::TurnLost { seat: Colour::Red });
    }

    #[test]
    fn a_capture_by_another_colour_is_noted() {
        use crate::rules::classic;
        let at = |red: [&str; 4], green: [&str; 4]| {
            let pieces = [(Colour::Red, red), (Colour::Green, green)].map(|(c, ps)| {
                (
                    c,
                    ps.iter()
                        .map(|p| p.parse().unwrap())
                        .collect::<Vec<Place>>(),
                )
            });
            let seats = Seats::for_players(2).unwrap();
            let position = classic::Position::new(seats, Colour::Red, &pieces).unwrap();
            Game::Classic(classic::Game::new(HouseRules::default(), position))
        };
        let moving = Due::Move {
            seat: Colour::Red,
            by: Actor::Player(Colour::Red),
        };
        let mut game = OnlineGame::new(snapshot(
            at(["T3", "B", "B", "B"], ["T5", "B", "B", "B"]),
            moving,
        ));
        game.update(snapshot(
            at(["T5", "B", "B", "B"], ["B", "B", "B", "B"]),
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
    fn a_moved_piece_keeps_its_identity_and_the_others_stay() {
        let t = |n| Place::Track(n);
        let old = [t(3), Place::Base, t(17), Place::Base];
        let new = [Place::Base, Place::Base, t(17), t(8)];
        assert_eq!(reslot(old, new), [t(8), Place::Base, t(17), Place::Base]);
    }

    #[test]
    fn the_turn_timer_counts_down_this_players_turn_and_starts_again_at_the_next() {
        let mine = Due::Roll {
            roll: 1,
            seat: Some(Colour::Red),
            by: Actor::Player(Colour::Red),
        };
        let mut game = OnlineGame::new(snapshot(fresh(), mine));
        assert_eq!(game.time_left(), Some(10));
        game.tick();
        game.tick();
        assert_eq!(game.time_left(), Some(8));
        let theirs = due_roll(Colour::Green);
        game.update(snapshot(fresh(), theirs));
        assert_eq!(game.time_left(), None, "not while another player is due");
        game.tick();
        game.update(snapshot(fresh(), mine));
        assert_eq!(game.time_left(), Some(10));
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

    #[test]
    fn a_tap_on_a_movable_piece_is_its_move_and_other_taps_are_nothing() {
        let mut game = fresh();
        game.roll(Die::SIX).unwrap();
        let due = Due::Move {
            seat: Colour::Red,
            by: Actor::Player(Colour::Red),
        };
        let online = OnlineGame::new(snapshot(game, due));
        let movable: Vec<PieceView> = online.pieces().into_iter().filter(|p| p.movable).collect();
        let start = Spot::Track(Colour::Red.start());
        assert_eq!(online.targets(), [start]);
        assert_eq!(online.tap_to(start), online.tap(movable[0].id));
        assert_eq!(movable.len(), 1, "one base piece is offered");
        let action = online.tap(movable[0].id);
        assert_eq!(action, Some(Action::Move(game.legal_moves()[0])));
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
    fn a_matfyz_game_shows_every_piece_and_offers_none_to_tap() {
        let seats = Seats::for_players(2).unwrap();
        let game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
        let board = OnlineGame::new(snapshot(game, due_roll(Colour::Red)));
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
}
