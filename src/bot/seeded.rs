//! The only randomness computer players use: a ChaCha generator seeded from
//! the seed they are given (the game's shared randomness), so that every
//! phone draws the same numbers.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The generator for one decision.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
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
    fn below_is_a_pure_function_of_the_seed() {
        let draws = |seed| {
            let mut rng = rng(seed);
            (0..20).map(|_| below(&mut rng, 6)).collect::<Vec<_>>()
        };
        assert_eq!(draws(42), draws(42));
        assert_ne!(draws(42), draws(43));
    }
}
