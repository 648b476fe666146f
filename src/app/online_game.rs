//! The controller of an online game's board: the replicated log's state
//! ([`Snapshot`]) as the game screen draws it, and this player's taps as
//! the game's [`Action`]s. Plain Rust, tested without a window.
//!
//! The log knows only where each colour has pieces; to animate one piece
//! moving, this keeps each piece's identity (its slot) from one state to
//! the next, as the offline controller does.

use crate::net::front::Action;
use crate::protocol::{Actor, Control, Due, End};
use crate::rules::{Colour, Game, Place};

use super::fairness::{Fairness, Roll};
use super::offline::{PieceId, PieceView, endpoints, places};
use super::online::Snapshot;

/// An online game as this phone shows it.
pub struct OnlineGame {
    snapshot: Snapshot,
    /// Each piece's place, by colour and slot.
    slots: [[Place; 4]; 4],
}

impl OnlineGame {
    /// The board of `snapshot`.
    pub fn new(snapshot: Snapshot) -> OnlineGame {
        let mut game = OnlineGame {
            snapshot,
            slots: [[Place::Base; 4]; 4],
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
        self.snapshot = snapshot;
        if let Some(g) = self.classic() {
            for colour in g.seats().iter() {
                let slots = &mut self.slots[colour.index()];
                *slots = reslot(*slots, places(&g, colour));
            }
        }
    }

    /// The rules' game, if it is one this board draws: the Matfyz board
    /// (shared pieces, base and home contents) is not drawn yet, so a
    /// Matfyz game shows no pieces and takes no taps rather than failing.
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

    /// Every piece with where it may go if this player taps it now.
    pub fn pieces(&self) -> Vec<PieceView> {
        let Some(game) = self.classic() else {
            return Vec::new();
        };
        let moves = if self.must_move() {
            game.legal_moves()
        } else {
            Vec::new()
        };
        let mut pieces = Vec::with_capacity(16);
        for colour in game.seats().iter() {
            let mut base_offered = false;
            for (slot, &place) in self.slots[colour.index()].iter().enumerate() {
                let mut target = moves
                    .iter()
                    .map(|&mv| endpoints(mv))
                    .find(|&(c, from, _)| c == colour && from == place)
                    .map(|(_, _, to)| to);
                // One tap brings exactly one base piece out.
                if place == Place::Base && target.is_some() {
                    target = target.filter(|_| !base_offered);
                    base_offered = true;
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

    /// This player taps `piece`: the move, if it may move now.
    pub fn tap(&self, piece: PieceId) -> Option<Action> {
        let game = self.classic()?;
        if !self.must_move() {
            return None;
        }
        let place = self.slots[piece.colour.index()][piece.slot];
        game.legal_moves()
            .into_iter()
            .find(|&mv| {
                let (colour, from, _) = endpoints(mv);
                colour == piece.colour && from == place
            })
            .map(Action::Move)
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
    use crate::protocol::RollRecord;
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
        }
    }

    fn fresh() -> Game {
        let seats = Seats::for_players(2).unwrap();
        Game::new(RuleSet::Classic(HouseRules::default()), seats, Colour::Red).unwrap()
    }

    #[test]
    fn a_moved_piece_keeps_its_identity_and_the_others_stay() {
        let t = |n| Place::Track(n);
        let old = [t(3), Place::Base, t(17), Place::Base];
        let new = [Place::Base, Place::Base, t(17), t(8)];
        assert_eq!(reslot(old, new), [t(8), Place::Base, t(17), Place::Base]);
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
        let movable: Vec<PieceView> = online
            .pieces()
            .into_iter()
            .filter(|p| p.target.is_some())
            .collect();
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
}
