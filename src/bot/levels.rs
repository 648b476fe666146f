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
        // Ties drawn from the next number: the medium player's own draw
        // would be the first, which, small enough to choose this branch,
        // would always pick the first of two or three.
        pick(&rated_best(game, moves), &mut rng)
    } else {
        seeded::below(&mut rng, moves.len())
    }
}

/// The medium player: the move with the best rule-of-thumb score, ties
/// drawn from the seed.
pub fn medium<G: Playable>(game: &G, moves: &[G::Move], seed: u64) -> usize {
    tie_break(&rated_best(game, moves), seed)
}

/// The moves (indices) with the best rule-of-thumb score.
fn rated_best<G: Playable>(game: &G, moves: &[G::Move]) -> Vec<usize> {
    let scores: Vec<i32> = moves.iter().map(|&mv| game.rate(mv)).collect();
    let top = scores.iter().copied().max().unwrap_or(0);
    (0..moves.len()).filter(|&i| scores[i] == top).collect()
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
    pick(candidates, &mut seeded::rng(seed))
}

/// One of `candidates` (indices, at least one), drawn from `rng`.
fn pick(candidates: &[usize], rng: &mut rand_chacha::ChaCha8Rng) -> usize {
    let drawn = seeded::below(rng, candidates.len());
    candidates.get(drawn).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::playable::Values;
    use crate::rules::{Colour, Die, Next};

    /// A game whose three moves are all as good to the rule of thumb.
    #[derive(Clone, Copy)]
    struct Even;

    impl Playable for Even {
        type Move = usize;
        fn next(&self) -> Next {
            Next::Move { seat: Colour::Red }
        }
        fn roll(&mut self, _: Die) {}
        fn moves(&self) -> impl Iterator<Item = usize> {
            0..3
        }
        fn play(&mut self, _: usize) -> bool {
            true
        }
        fn rate(&self, _: usize) -> i32 {
            0
        }
        fn evaluate(&self) -> Values {
            Values::default()
        }
        const LOGIT: i64 = 1;
    }

    #[test]
    fn the_easy_player_draws_its_rule_of_thumbs_ties_from_the_seed() {
        let moves = [0, 1, 2];
        // The seeds where easy plays by the rule of thumb: each of the
        // tied moves comes up.
        let mut picked = [0; 3];
        for seed in 0..3_000 {
            if seeded::below(&mut seeded::rng(seed), 3) == 0 {
                picked[easy(&Even, &moves, seed)] += 1;
            }
        }
        assert!(picked.iter().all(|&n| n > 250), "{picked:?}");
        // As the medium player's are.
        let mut picked = [0; 3];
        for seed in 0..3_000 {
            picked[medium(&Even, &moves, seed)] += 1;
        }
        assert!(picked.iter().all(|&n| n > 800), "{picked:?}");
    }
}
