//! The hard player's search: expectimax over the dice, each colour choosing
//! the move best for itself (max-n), down to a depth counted in rolls, with
//! [`Playable::evaluate`] at the leaves.
//!
//! The work is bounded by a count of nodes, never by a clock, so that a slow
//! phone and a fast one reach the same depth and the same move. The search
//! deepens one roll at a time and keeps the answer of the deepest depth it
//! finished within the budget.

use super::playable::{Playable, Values};
use crate::rules::{Colour, Die, Next};

/// Nodes the hard player may visit for one move: enough for two rolls
/// ahead in nearly every position, and a bound of a few milliseconds on
/// the rest (figures in docs/performance.md).
pub const NODE_BUDGET: u64 = 20_000;
/// Deepest search, in rolls after the move. Tournaments found no gain in
/// strength beyond one roll (docs/bots.md); the second roll is kept because
/// it is cheap and sees a capture that needs a six and another roll.
const MAX_DEPTH: u8 = 2;
/// Most moves searched in a row without a roll between them (a Matfyz
/// turn's runs; a classic roll has one move), after which the position is
/// evaluated. Real turns have a few; a position with thousands of sixes
/// to use would otherwise nest the search as deep as the stack.
const MAX_MOVES_PER_ROLL: u8 = 8;

/// The indices of the moves that the deepest finished search rates best
/// for the colour to move, in move order; `None` when not even one roll
/// ahead fits in `budget` or no move is due.
pub fn best_moves<G: Playable>(game: &G, moves: &[G::Move], budget: u64) -> Option<Vec<usize>> {
    let Next::Move { seat } = game.next() else {
        return None;
    };
    let mut search = Search { nodes: 0, budget };
    let mut best = None;
    for depth in 1..=MAX_DEPTH {
        match search.root(game, moves, seat, depth) {
            Some(found) => best = Some(found),
            None => break,
        }
    }
    best
}

/// One search's node count against its budget.
struct Search {
    nodes: u64,
    budget: u64,
}

impl Search {
    /// Counts a node; `None` once the budget is spent.
    fn visit(&mut self) -> Option<()> {
        self.nodes += 1;
        (self.nodes <= self.budget).then_some(())
    }

    fn root<G: Playable>(
        &mut self,
        game: &G,
        moves: &[G::Move],
        seat: Colour,
        depth: u8,
    ) -> Option<Vec<usize>> {
        let mut best = Vec::new();
        let mut best_value = i32::MIN;
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = *game;
            if !child.play(mv) {
                continue;
            }
            let value = self.value(&child, depth, 1)?.of(seat);
            if value > best_value {
                best.clear();
                best_value = value;
            }
            if value == best_value {
                best.push(i);
            }
        }
        Some(best)
    }

    /// The expected values of `game`, looking `depth` rolls ahead, reached
    /// by `moved` moves since the last roll.
    fn value<G: Playable>(&mut self, game: &G, depth: u8, moved: u8) -> Option<Values> {
        self.visit()?;
        match game.next() {
            Next::Won { .. } => Some(game.evaluate()),
            Next::Roll { .. } if depth == 0 => Some(game.evaluate()),
            Next::Move { .. } if moved >= MAX_MOVES_PER_ROLL => Some(game.evaluate()),
            Next::Roll { .. } => {
                let mut sum = [0; 4];
                for die in Die::all() {
                    let mut child = *game;
                    child.roll(die);
                    self.value(&child, depth - 1, 0)?.add_to(&mut sum);
                }
                Some(Values::mean_of_six(sum))
            }
            Next::Move { seat } => {
                let mut best: Option<Values> = None;
                for mv in game.moves() {
                    let mut child = *game;
                    if !child.play(mv) {
                        continue;
                    }
                    let value = self.value(&child, depth, moved + 1)?;
                    if best.is_none_or(|b| value.of(seat) > b.of(seat)) {
                        best = Some(value);
                    }
                }
                Some(best.unwrap_or_else(|| game.evaluate()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::classic::{Game, HouseRules, Position};
    use crate::rules::{Colour, Die, Seats};

    /// A classic 4-player game after a fixed run of rolls (each colour
    /// playing its first move), at the first decision that a search two
    /// rolls deep answers otherwise than one roll deep, with both searches
    /// ([`whole`]).
    fn decision() -> (Game, Searched, Searched) {
        let seats = Seats::for_players(4).unwrap();
        let mut game = Game::new(
            HouseRules::default(),
            Position::start(seats, Colour::Red).unwrap(),
        );
        let faces = [6, 6, 3, 5, 6, 4, 2, 6, 1, 6, 5, 3, 4, 2, 6, 6, 1, 5];
        for face in faces.iter().cycle() {
            match Playable::next(&game) {
                Next::Won { .. } => unreachable!("no game is won this soon"),
                Next::Roll { .. } => Playable::roll(&mut game, Die::new(*face).unwrap()),
                Next::Move { .. } => {
                    let (one, two) = (whole(&game, 1), whole(&game, 2));
                    if one.1 != two.1 {
                        return (game, one, two);
                    }
                    let first = game.moves().next().unwrap();
                    assert!(Playable::play(&mut game, first));
                }
            }
        }
        unreachable!()
    }

    /// Nodes a search visited, and its answer.
    type Searched = (u64, Vec<usize>);

    /// The search `depth` rolls deep, with no budget.
    fn whole(game: &Game, depth: u8) -> Searched {
        let moves: Vec<_> = game.moves().collect();
        let Next::Move { seat } = Playable::next(game) else {
            unreachable!()
        };
        let mut search = Search {
            nodes: 0,
            budget: u64::MAX,
        };
        let best = search.root(game, &moves, seat, depth).unwrap();
        (search.nodes, best)
    }

    #[test]
    fn the_deepest_search_finished_within_the_budget_is_kept() {
        let (game, (one, best_one), (two, best_two)) = decision();
        let moves: Vec<_> = game.moves().collect();
        assert!(two > one);
        assert_ne!(best_one, best_two);
        // Not even one roll fits: no answer (the hard player then plays
        // the medium move).
        assert_eq!(best_moves(&game, &moves, one - 1), None);
        // One roll fits and two do not: the one roll's answer.
        assert_eq!(best_moves(&game, &moves, one + two - 1), Some(best_one));
        assert_eq!(best_moves(&game, &moves, one + two), Some(best_two));
    }
}
