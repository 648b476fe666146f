//! The die of offline games: a ChaCha stream seeded from the operating
//! system. Games between phones draw their dice from the game log's shared
//! randomness instead; this one is only for games on one device, where there
//! is nobody to cheat.

use rand_chacha::ChaCha12Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::rules::Die;

/// A fair die.
pub struct Dice {
    rng: ChaCha12Rng,
}

impl Dice {
    /// A die seeded with `seed` (the same seed rolls the same numbers).
    pub fn from_seed(seed: [u8; 32]) -> Dice {
        Dice {
            rng: ChaCha12Rng::from_seed(seed),
        }
    }

    /// A die seeded from the operating system's randomness.
    pub fn from_os() -> Result<Dice, getrandom::Error> {
        let mut seed = [0; 32];
        getrandom::fill(&mut seed)?;
        Ok(Dice::from_seed(seed))
    }

    /// One roll, uniform over the six faces: bytes of 252 and above are
    /// skipped, so that every face has 42 of the remaining 252 values.
    pub fn roll(&mut self) -> Die {
        loop {
            let byte = (self.rng.next_u32() & 0xff) as u8;
            if byte < 252
                && let Some(die) = Die::new(byte % 6 + 1)
            {
                return die;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_rolls_the_same_numbers() {
        let mut a = Dice::from_seed([7; 32]);
        let mut b = Dice::from_seed([7; 32]);
        for _ in 0..100 {
            assert_eq!(a.roll(), b.roll());
        }
    }

    #[test]
    fn every_face_comes_up_about_equally_often() {
        let mut dice = Dice::from_seed([1; 32]);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[usize::from(dice.roll().get() - 1)] += 1;
        }
        // Expected 10 000 each; five standard deviations is about ±460.
        for count in counts {
            assert!((9_500..10_500).contains(&count), "{counts:?}");
        }
    }
}
