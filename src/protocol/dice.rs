//! Commit-reveal dice. Every participant (a player's phone) commits at setup
//! to the head of a hash chain; the reveal for roll `k` is the chain's link
//! `k`, which hashes to link `k - 1`, so every reveal is checked against the
//! previous one and, in the end, against the commitment. The die of roll `k`
//! is drawn from a ChaCha20 generator seeded with the hash of (game id, `k`,
//! every reveal for `k`). Since the whole chain is fixed at setup, nobody can
//! choose a reveal, and nobody can compute a roll while one participant's
//! reveal for it is still secret.

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::digest::{Digest, Domain};
use crate::rules::{Colour, Die};

/// The secret at the bottom of a participant's dice chain. It never leaves
/// the phone, except to that phone's own disk.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceSecret([u8; 32]);

impl DiceSecret {
    /// A fresh secret from the operating system's random source.
    pub fn generate() -> Result<DiceSecret, getrandom::Error> {
        let mut bytes = [0; 32];
        getrandom::fill(&mut bytes)?;
        Ok(DiceSecret(bytes))
    }

    /// The secret with these bytes (tests and simulations derive them from
    /// a seed; a real phone uses [`DiceSecret::generate`]).
    pub fn from_bytes(bytes: [u8; 32]) -> DiceSecret {
        DiceSecret(bytes)
    }
}

impl std::fmt::Debug for DiceSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DiceSecret(…)")
    }
}

/// One step down a chain: link `k - 1` is the hash of link `k`.
fn step(link: &Digest) -> Digest {
    Digest::of(Domain::Chain, &link.0)
}

/// A participant's hash chain for a game of at most `rolls` rolls: link
/// `rolls` is the secret, link 0 (the commitment) is the secret hashed
/// `rolls` times. Kept whole in memory (32 bytes a roll) so that each reveal
/// is a lookup.
#[derive(Clone)]
pub struct DiceChain {
    links: Vec<Digest>,
}

impl DiceChain {
    pub fn new(secret: &DiceSecret, rolls: u32) -> DiceChain {
        let mut links = Vec::with_capacity(rolls as usize + 1);
        let mut link = Digest(secret.0);
        links.push(link);
        for _ in 0..rolls {
            link = step(&link);
            links.push(link);
        }
        links.reverse();
        DiceChain { links }
    }

    /// Link 0, published in the game header before any roll.
    pub fn commitment(&self) -> Digest {
        self.links[0]
    }

    /// This participant's reveal for roll `roll` (1-based), if the chain
    /// is that long.
    pub fn reveal(&self, roll: u32) -> Option<Digest> {
        if roll == 0 {
            return None;
        }
        self.links.get(roll as usize).copied()
    }
}

impl std::fmt::Debug for DiceChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DiceChain(commitment {})", self.commitment())
    }
}

/// The last link of a participant's chain that the log has seen: the
/// commitment (roll 0) or the reveal of the last roll they took part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    pub roll: u32,
    pub value: Digest,
}

impl Link {
    /// Whether `reveal` is the link for `roll` of the chain this link belongs
    /// to. Rolls a participant missed (while absent) are skipped by hashing
    /// once per roll.
    pub fn admits(&self, roll: u32, reveal: &Digest) -> bool {
        if roll <= self.roll {
            return false;
        }
        let mut link = *reveal;
        for _ in self.roll..roll {
            link = step(&link);
        }
        link == self.value
    }
}

/// The reveals of one roll, by seat colour; `None` for seats that take no
/// part (computer seats, players who are absent or left).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Reveals(pub [Option<Digest>; 4]);

impl Reveals {
    pub fn get(&self, colour: Colour) -> Option<Digest> {
        self.0[colour.index()]
    }

    pub fn set(&mut self, colour: Colour, reveal: Digest) {
        self.0[colour.index()] = Some(reveal);
    }
}

/// The randomness of one roll: a ChaCha20 generator seeded with the hash of
/// the game id, the roll number and all the roll's reveals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throw {
    seed: Digest,
}

impl Throw {
    pub fn new(game: &Digest, roll: u32, reveals: &Reveals) -> Throw {
        let mut bytes = Vec::with_capacity(32 + 4 + 4 * 33);
        bytes.extend_from_slice(&game.0);
        bytes.extend_from_slice(&roll.to_le_bytes());
        for reveal in reveals.0 {
            match reveal {
                Some(r) => {
                    bytes.push(1);
                    bytes.extend_from_slice(&r.0);
                }
                None => bytes.push(0),
            }
        }
        Throw {
            seed: Digest::of(Domain::Die, &bytes),
        }
    }

    /// The die: the generator's first 32-bit number below the largest
    /// multiple of 6, reduced mod 6 (rejection sampling, so every face has
    /// exactly the same chance).
    pub fn die(&self) -> Die {
        let face = self.below(6) as u8 + 1;
        Die::new(face).unwrap_or(Die::SIX)
    }

    /// A uniform number in `0..n` (for the random choice of the first
    /// player among `n` seats), by the same rejection sampling.
    pub fn below(&self, n: u32) -> u32 {
        let n = n.max(1);
        let zone = u32::MAX - u32::MAX % n;
        let mut rng = ChaCha20Rng::from_seed(self.seed.0);
        loop {
            let x = rng.next_u32();
            if x < zone {
                return x % n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reveals_follow_the_commitment_one_link_at_a_time() {
        let chain = DiceChain::new(&DiceSecret::from_bytes([3; 32]), 10);
        let start = Link {
            roll: 0,
            value: chain.commitment(),
        };
        let first = chain.reveal(1).unwrap();
        assert!(start.admits(1, &first));
        assert!(!start.admits(2, &first));
        // A participant who missed rolls 1..=4 is checked across the gap.
        assert!(start.admits(5, &chain.reveal(5).unwrap()));
        assert_eq!(chain.reveal(10), Some(Digest([3; 32])));
        assert_eq!(chain.reveal(11), None);
        assert_eq!(chain.reveal(0), None);
    }

    #[test]
    fn a_throw_depends_on_every_reveal() {
        let game = Digest([1; 32]);
        let mut reveals = Reveals::default();
        reveals.set(Colour::Red, Digest([5; 32]));
        let faces: std::collections::BTreeSet<u8> = (0..200u8)
            .map(|b| {
                let mut r = reveals;
                r.set(Colour::Green, Digest([b; 32]));
                Throw::new(&game, 1, &r).die().get()
            })
            .collect();
        assert_eq!(faces.len(), 6);
    }
}
