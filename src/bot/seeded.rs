//! The only randomness computer players use: a ChaCha generator seeded from
//! the seed they are given (the game's shared randomness), so that every
//! phone draws the same numbers.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::rules::Die;

/// The generator for one decision.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The independent uses of one decision's seed beside [`rng`]'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The dice of the rollout player's continuations.
    RolloutDice = 1,
}

/// The generator of one `stream` of a decision's seed: unrelated to
/// [`rng`]'s draws from the same seed, so that adding a use of the seed
/// changes no other.
pub fn stream(seed: u64, stream: Stream) -> ChaCha8Rng {
    let mut rng = rng(seed);
    rng.set_stream(stream as u64);
    rng
}

/// The generator of `stream` of item `index` of a run with `seed` (a
/// tournament's game, an audit's rollout): every (seed, index, stream)
/// draws its own numbers.
pub fn keyed(seed: u64, index: u32, stream: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..12].copy_from_slice(&index.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(key);
    rng.set_stream(stream);
    rng
}

/// A fair roll of the die.
pub fn die(rng: &mut impl Rng) -> Die {
    let face = below(rng, 6) as u8 + 1;
    // `below(_, 6)` is under 6, so every face is a die's.
    Die::new(face).unwrap_or(Die::SIX)
}

/// A uniform index below `n` (Lemire's multiply-and-reject), 0 when `n` is 0.
///
/// Written out rather than taken from `rand`, whose range sampling may change
/// between versions: every peer of a game must draw the same index from the
/// same seed, whatever it was built with.
pub fn below(rng: &mut impl Rng, n: usize) -> usize {
    let Ok(n) = u32::try_from(n) else {
        // More choices than a u32 can count cannot arise; take the first.
        return 0;
    };
    if n == 0 {
        return 0;
    }
    let threshold = n.wrapping_neg() % n;
    loop {
        let wide = u64::from(rng.next_u32()) * u64::from(n);
        if (wide as u32) >= threshold {
            return (wide >> 32) as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_reaches_every_index() {
        let mut rng = rng(7);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[below(&mut rng, 5)] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(below(&mut rng, 0), 0);
        assert_eq!(below(&mut rng, 1), 0);
    }

    #[test]
    fn a_stream_draws_apart_from_the_decisions_own_numbers() {
        let draws = |mut rng: ChaCha8Rng| (0..8).map(|_| rng.next_u32()).collect::<Vec<_>>();
        let own = draws(rng(42));
        let dice = draws(stream(42, Stream::RolloutDice));
        assert_ne!(own, dice);
        assert_eq!(dice, draws(stream(42, Stream::RolloutDice)));
    }

    #[test]
    fn die_rolls_every_face_and_only_faces() {
        let mut rng = rng(1);
        let mut seen = [false; 6];
        for _ in 0..200 {
            seen[usize::from(die(&mut rng).get()) - 1] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn below_is_a_pure_function_of_the_seed() {
        let draws = |seed| {
            let mut rng = rng(seed);
            (0..20).map(|_| below(&mut rng, 6)).collect::<Vec<_>>()
        };
        assert_eq!(draws(42), draws(42));
        assert_ne!(draws(42), draws(43));
    }
}
