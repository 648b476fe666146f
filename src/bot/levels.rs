//! The players, written once over [`Playable`]: random, easy, medium, hard
//! and the tournament-only rollout player. Each is a pure function of the
//! game and a seed.

use super::playable::Playable;
use super::rollout;
use super::search;
use super::seeded;

/// A random player: any legal move, uniformly.
pub fn random<G: Playable>(moves: &[G::Move], seed: u64) -> usize {
    seeded::below(&mut seeded::rng(seed), moves.len())
}

/// The easy player: a random move two times in three, the medium player's
/// move otherwise, so that it sometimes does the obvious thing but often
/// misses it.
pub fn easy<G: Playable>(game: &G, moves: &[G::Move], seed: u64) -> usize {
    let mut rng = seeded::rng(seed);
    if seeded::below(&mut rng, 3) == 0 {
        medium(game, moves, seed)
    } else {
        seeded::below(&mut rng, moves.len())
    }
}

/// The medium player: the move with the best rule-of-thumb score, ties
/// drawn from the seed.
pub fn medium<G: Playable>(game: &G, moves: &[G::Move], seed: u64) -> usize {
    let scores: Vec<i32> = moves.iter().map(|&mv| game.rate(mv)).collect();
    let top = scores.iter().copied().max().unwrap_or(0);
    let best: Vec<usize> = (0..moves.len()).filter(|&i| scores[i] == top).collect();
    tie_break(&best, seed)
}

/// The hard player: the best move of the search, ties drawn from the seed;
/// the medium player's move if the search cannot look even one roll ahead.
pub fn hard<G: Playable>(game: &G, moves: &[G::Move], seed: u64) -> usize {
    match search::best_moves(game, moves, search::NODE_BUDGET) {
        Some(best) if !best.is_empty() => tie_break(&best, seed),
        _ => medium(game, moves, seed),
    }
}

/// The rollout player (tournaments only): the move whose rollouts score
/// best, ties drawn from the seed.
pub fn rollout<G: Playable>(game: &G, moves: &[G::Move], seed: u64) -> usize {
    let best = rollout::best_moves(game, moves, seed, rollout::BUDGET);
    if best.is_empty() {
        medium(game, moves, seed)
    } else {
        tie_break(&best, seed)
    }
}

/// One of `candidates` (indices, at least one), drawn from the seed.
fn tie_break(candidates: &[usize], seed: u64) -> usize {
    let pick = seeded::below(&mut seeded::rng(seed), candidates.len());
    candidates.get(pick).copied().unwrap_or(0)
}
